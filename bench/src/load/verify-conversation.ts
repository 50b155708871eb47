import { chainHeadDigest, emptyHeadDigest, messageDigest } from "@cursor/run";
import type { CanonicalMessage } from "@cursor/run";

/** `GET /v1/conversations/{id}` as far as the check reads it. */
export interface ConversationSummary {
  readonly conversationId: string;
  readonly epoch: number;
  readonly messages: number;
  readonly headDigest: string;
}

/** A usage record (`GET …/calls`) as far as the check reads it. */
export interface CallRecordEvidence {
  readonly callId: string;
  readonly runId: string;
  readonly kind: string;
  readonly attempt: number;
  readonly outcome: string;
}

/** A run record of the store (`runs` rows of the conversation). */
export interface RunRecordEvidence {
  readonly runId: string;
  readonly status: string;
}

/** What was read back about one conversation after the load; a string where the read failed. */
export interface ConversationEvidence {
  readonly conversationId: string;
  readonly summary: ConversationSummary | string;
  /** `GET …/history`: the current epoch's messages as JSON values. */
  readonly history: readonly unknown[] | string;
  readonly calls: readonly CallRecordEvidence[] | string;
  readonly runs: readonly RunRecordEvidence[];
  /** Provider calls the fake provider received for this conversation (its own record). */
  readonly providerCalls: number;
}

/** What the load did to the conversation. */
export interface ConversationExpectation {
  /** User turns sent, each one tool round (two provider calls). */
  readonly turns: number;
  /** The client's run ids, one per turn. */
  readonly runIds: readonly string[];
}

/** Provider calls of one load turn: the tool call, then the answer from its result. */
export const callsPerTurn = 2;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Values that occur more than once, each once, in first-seen order. */
function duplicates(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const value of values) {
    if (seen.has(value)) repeated.add(value);
    seen.add(value);
  }
  return [...repeated];
}

function list(values: readonly string[], max = 3): string {
  return values.length <= max
    ? values.join(", ")
    : `${values.slice(0, max).join(", ")} and ${values.length - max} more`;
}

/**
 * The head digest of `history` recomputed from its messages, as `@cursor/run`'s history log
 * chains it: `emptyHeadDigest(epoch)`, then `sha256(previous ‖ messageDigest)` per message.
 */
export function recomputeHeadDigest({
  epoch,
  history,
}: {
  epoch: number;
  history: readonly unknown[];
}): string {
  let head = emptyHeadDigest(epoch);
  for (const message of history) {
    head = chainHeadDigest(head, messageDigest(message as CanonicalMessage));
  }
  return head;
}

/** The history's own problems: ids stored twice, and a shape other than the load's turns. */
function historyProblems({
  history,
  turns,
}: {
  history: readonly unknown[];
  turns: number;
}): string[] {
  const problems: string[] = [];
  const messages = history.filter(isRecord);
  if (messages.length !== history.length) {
    problems.push(`${history.length - messages.length} history entries are not messages`);
  }
  const repeatedIds = duplicates(messages.map((message) => String(message.id)));
  if (repeatedIds.length > 0) problems.push(`message ids stored twice: ${list(repeatedIds)}`);
  const ofKind = (kind: string) => messages.filter((message) => message.kind === kind);
  const contexts = ofKind("request-context").length;
  // The client sends the same request context every turn: it is stored once.
  if (contexts !== 1) problems.push(`${contexts} request-context messages, expected 1`);
  const userTurns = ofKind("runtime").filter((message) => message.runtimeKind === "user-turn");
  if (userTurns.length !== turns) {
    problems.push(`${userTurns.length} user turns in the history, expected ${turns}`);
  }
  const repeatedEvents = duplicates(userTurns.map((message) => String(message.eventId)));
  if (repeatedEvents.length > 0) problems.push(`user turns stored twice: ${list(repeatedEvents)}`);
  const assistants = ofKind("assistant");
  const toolCalls = assistants.flatMap((message) =>
    Array.isArray(message.toolCalls)
      ? message.toolCalls.map((call) => String((call as { callId?: unknown }).callId))
      : [],
  );
  const answers = assistants.filter(
    (message) => !Array.isArray(message.toolCalls) || message.toolCalls.length === 0,
  );
  const results = ofKind("tool-result").map((message) => String(message.callId));
  if (toolCalls.length !== turns) {
    problems.push(`${toolCalls.length} tool calls, expected ${turns}`);
  }
  if (results.length !== turns) problems.push(`${results.length} tool results, expected ${turns}`);
  if (answers.length !== turns) problems.push(`${answers.length} answers, expected ${turns}`);
  const repeatedCalls = duplicates(toolCalls);
  if (repeatedCalls.length > 0) problems.push(`tool calls stored twice: ${list(repeatedCalls)}`);
  const repeatedResults = duplicates(results);
  if (repeatedResults.length > 0) {
    problems.push(`tool results stored twice: ${list(repeatedResults)}`);
  }
  const calls = new Set(toolCalls);
  const orphans = results.filter((callId) => !calls.has(callId));
  if (orphans.length > 0) problems.push(`tool results without their call: ${list(orphans)}`);
  const answered = new Set(results);
  const open = toolCalls.filter((callId) => !answered.has(callId));
  if (open.length > 0) problems.push(`tool calls without a result: ${list(open)}`);
  return problems;
}

/** The usage records: one per provider call made, each once, each the run's own. */
function callProblems({
  calls,
  providerCalls,
  expected,
}: {
  calls: readonly CallRecordEvidence[];
  providerCalls: number;
  expected: ConversationExpectation;
}): string[] {
  const problems: string[] = [];
  const made = expected.turns * callsPerTurn;
  if (providerCalls !== made) {
    problems.push(`the fake provider received ${providerCalls} calls, the client caused ${made}`);
  }
  if (calls.length !== providerCalls) {
    problems.push(`${calls.length} usage records for ${providerCalls} provider calls`);
  }
  const repeated = duplicates(calls.map((call) => call.callId));
  if (repeated.length > 0) problems.push(`usage records stored twice: ${list(repeated)}`);
  const notOk = calls.filter(
    (call) => call.outcome !== "ok" || call.attempt !== 1 || call.kind !== "model",
  );
  if (notOk.length > 0) {
    problems.push(
      `usage records of failed, retried or extra calls: ${list(notOk.map((call) => `${call.callId} (${call.kind}, attempt ${call.attempt}, ${call.outcome})`))}`,
    );
  }
  const perRun = new Map<string, number>();
  for (const call of calls) perRun.set(call.runId, (perRun.get(call.runId) ?? 0) + 1);
  const wrong = expected.runIds.filter((runId) => (perRun.get(runId) ?? 0) !== callsPerTurn);
  if (wrong.length > 0) {
    problems.push(
      `runs without exactly ${callsPerTurn} usage records: ${list(wrong.map((runId) => `${runId} (${perRun.get(runId) ?? 0})`))}`,
    );
  }
  const known = new Set(expected.runIds);
  const strangers = [...perRun.keys()].filter((runId) => !known.has(runId));
  if (strangers.length > 0) problems.push(`usage records of unknown runs: ${list(strangers)}`);
  return problems;
}

/** The store's run records: each client run once, completed, nothing else. */
function runProblems({
  runs,
  expected,
}: {
  runs: readonly RunRecordEvidence[];
  expected: ConversationExpectation;
}): string[] {
  const problems: string[] = [];
  const repeated = duplicates(runs.map((run) => run.runId));
  if (repeated.length > 0) problems.push(`run records stored twice: ${list(repeated)}`);
  const stored = new Set(runs.map((run) => run.runId));
  const missing = expected.runIds.filter((runId) => !stored.has(runId));
  if (missing.length > 0) problems.push(`runs without a run record: ${list(missing)}`);
  const known = new Set(expected.runIds);
  const strangers = runs.filter((run) => !known.has(run.runId)).map((run) => run.runId);
  if (strangers.length > 0) problems.push(`run records of unknown runs: ${list(strangers)}`);
  const unfinished = runs.filter((run) => known.has(run.runId) && run.status !== "completed");
  if (unfinished.length > 0) {
    problems.push(
      `runs not completed: ${list(unfinished.map((run) => `${run.runId} (${run.status})`))}`,
    );
  }
  return problems;
}

/**
 * Everything wrong with one conversation after the load, each problem prefixed with its id; []
 * when it loads (`GET …` and `…/history`), its head digest verifies (recomputed from the
 * history with `@cursor/run`'s digest functions), and nothing is stored twice: no message id,
 * user turn, tool call or result twice, exactly one request context, one usage record per
 * provider call the fake provider received (which is what the client's turns caused), one
 * completed run record per client run.
 */
export function verifyConversation({
  evidence,
  expected,
}: {
  evidence: ConversationEvidence;
  expected: ConversationExpectation;
}): string[] {
  const problems: string[] = [];
  const { summary, history, calls } = evidence;
  if (typeof summary === "string") problems.push(`GET /v1/conversations/{id}: ${summary}`);
  if (typeof history === "string") problems.push(`GET …/history: ${history}`);
  if (typeof summary !== "string" && typeof history !== "string") {
    if (summary.conversationId !== evidence.conversationId) {
      problems.push(`the summary names ${summary.conversationId}`);
    }
    if (summary.messages !== history.length) {
      problems.push(
        `the summary counts ${summary.messages} messages, the history has ${history.length}`,
      );
    }
    const recomputed = recomputeHeadDigest({ epoch: summary.epoch, history });
    if (recomputed !== summary.headDigest) {
      problems.push(
        `head digest ${summary.headDigest.slice(0, 12)}… does not verify: the history chains to ${recomputed.slice(0, 12)}…`,
      );
    }
    problems.push(...historyProblems({ history, turns: expected.turns }));
  }
  if (typeof calls === "string") problems.push(`GET …/calls: ${calls}`);
  else problems.push(...callProblems({ calls, providerCalls: evidence.providerCalls, expected }));
  problems.push(...runProblems({ runs: evidence.runs, expected }));
  return problems.map((problem) => `${evidence.conversationId}: ${problem}`);
}
