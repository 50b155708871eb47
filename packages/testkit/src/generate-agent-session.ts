import type {
  AgentSession,
  AgentSessionStats,
  RunRequestBody,
  SessionBackgroundCompletion,
  SessionEvent,
  SessionMode,
  SessionUserMessage,
} from "./agent-session-events.js";
import { tinyPng } from "./conversation-arbitrary.js";
import type { FakeReply } from "@cursor/fake-provider";
import fc from "fast-check";
import { SeededRandom } from "./seeded-random.js";
import {
  contextVariantNames,
  plannedCall,
  requestContextVariants,
  sourceFile,
  sourcePath,
  toolsByMode,
  userQuery,
} from "./session-content.js";
import type { PlannedCall } from "./session-content.js";

/** Behaviours a session may include; all on by default. */
export type SessionFeature =
  | "toolRounds"
  | "contextChanges"
  | "modeSwitches"
  | "background"
  | "injections"
  | "retries"
  | "restarts"
  | "compaction"
  | "reasoning"
  | "images";

export interface AgentSessionOptions {
  readonly seed: number;
  /** Number of user turns. */
  readonly turns: number;
  /** Default `session-<seed>`. */
  readonly conversationId?: string;
  /** Sent as `model` in every body when given. */
  readonly model?: string;
  /** Typical size of a large tool result in characters (read_file). Default 6000. */
  readonly toolResultChars?: number;
  /** ISO 8601 with offset: the first event's timestamp. Default `2026-11-29T10:00:00+01:00`. */
  readonly startTime?: string;
  /** Seconds between consecutive events. Default 37. */
  readonly secondsBetweenEvents?: number;
  readonly features?: Partial<Readonly<Record<SessionFeature, boolean>>>;
}

const modes: readonly SessionMode[] = ["agent", "ask", "plan", "debug"];

/** Parses `…+01:00` / `…Z` into epoch milliseconds and the offset in minutes. */
function parseStart(iso: string): { ms: number; offsetMinutes: number } {
  const match = /(Z|([+-])(\d\d):(\d\d))$/.exec(iso);
  const ms = Date.parse(iso);
  if (match === null || Number.isNaN(ms))
    throw new RangeError(`startTime must be ISO 8601 with an offset, got ${iso}`);
  const offsetMinutes =
    match[1] === "Z" ? 0 : (match[2] === "-" ? -1 : 1) * (Number(match[3]) * 60 + Number(match[4]));
  return { ms, offsetMinutes };
}

function formatTimestamp(ms: number, offsetMinutes: number): string {
  const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 19);
  if (offsetMinutes === 0) return `${local}Z`;
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

interface ToolRound {
  readonly calls: readonly (PlannedCall & { readonly callId: string })[];
}

/**
 * A deterministic agent session: `turns` user turns with tool rounds and large results, request
 * contexts that change and revert, mode switches, background completions (and a duplicate
 * delivery), injected context, retries of completed runs, gateway restarts and a manual
 * compaction. Same options, same session. With at least 8 turns every behaviour occurs at least
 * once (each can be switched off with `features`).
 */
export function generateAgentSession(options: AgentSessionOptions): AgentSession {
  if (!Number.isInteger(options.turns) || options.turns < 1) {
    throw new RangeError(`turns must be a positive integer, got ${options.turns}`);
  }
  const random = new SeededRandom(options.seed);
  const on = (feature: SessionFeature) => options.features?.[feature] !== false;
  const conversationId = options.conversationId ?? `session-${options.seed}`;
  const toolResultChars = options.toolResultChars ?? 6000;
  const start = parseStart(options.startTime ?? "2026-11-29T10:00:00+01:00");
  const step = (options.secondsBetweenEvents ?? 37) * 1000;
  const turns = options.turns;
  const compactionTurn = on("compaction") && turns >= 6 ? Math.floor((turns * 2) / 3) : -1;
  const restartTurn = on("restarts") && turns >= 4 ? Math.floor(turns / 2) : -1;

  const events: SessionEvent[] = [];
  const timestamp = () => formatTimestamp(start.ms + events.length * step, start.offsetMinutes);
  const base = (runId: string, mode: SessionMode) => ({
    conversationId,
    runId,
    mode,
    ...(options.model === undefined ? {} : { model: options.model }),
    timestamp: timestamp(),
  });
  const maybeReasoning = (reply: FakeReply, what: string): FakeReply =>
    on("reasoning") && random.chance(0.3)
      ? {
          type: "reasoning",
          reasoning: `Thinking about ${what}.`,
          redacted: random.chance(0.1),
          then: reply,
        }
      : reply;

  let mode: SessionMode = "agent";
  let variant = "base";
  const variantHistory: string[] = ["base"];
  let lastAcceptedRunId: string | undefined;
  let pendingBackground: { taskId: string; toolCallId: string; title: string }[] = [];
  let compacted = false;
  let backgroundCount = 0;
  let injectionCount = 0;

  for (let turn = 0; turn < turns; turn += 1) {
    if (
      turn === restartTurn ||
      (on("restarts") && turn > 0 && turn !== restartTurn && random.chance(0.04))
    ) {
      events.push({ type: "restart", index: events.length });
    }

    const forcedModeSwitch = on("modeSwitches") && turn === 2;
    const modeSwitched =
      turn > 1 && on("modeSwitches") && (forcedModeSwitch || random.chance(0.15));
    if (modeSwitched) mode = random.pick(modes.filter((m) => m !== mode));

    // Context: A → B at turn 1, back to A at turn 3, then random changes that often revert.
    let nextVariant = variant;
    if (on("contextChanges")) {
      if (turn === 1) nextVariant = "extra-rule";
      else if (turn === 3) nextVariant = "base";
      else if (turn > 3 && random.chance(0.2)) {
        const previous = variantHistory[variantHistory.length - 2];
        nextVariant =
          previous !== undefined && random.chance(0.5)
            ? previous
            : random.pick(contextVariantNames.filter((name) => name !== variant));
      }
    }
    const contextChanged = turn > 0 && nextVariant !== variant;
    const contextReverted =
      contextChanged && variantHistory[variantHistory.length - 2] === nextVariant;
    if (contextChanged) variantHistory.push(nextVariant);
    variant = nextVariant;

    const runId = `run-${turn + 1}`;
    const message: SessionUserMessage = {
      id: `msg-${turn + 1}`,
      text: userQuery(random, turn),
      ...(random.chance(0.3)
        ? {
            selectedContext: [
              random.chance(0.5)
                ? {
                    kind: "file" as const,
                    path: sourcePath(random),
                    content: sourceFile(random, 800),
                  }
                : {
                    kind: "code" as const,
                    path: sourcePath(random),
                    startLine: 10,
                    endLine: 24,
                    content: sourceFile(random, 400),
                  },
            ],
          }
        : {}),
      ...(random.chance(0.5)
        ? {
            openFiles: [
              {
                path: sourcePath(random),
                totalLines: random.int(20, 900),
                focused: true,
                cursorLine: random.int(1, 20),
              },
            ],
          }
        : {}),
      ...(on("images") && random.chance(0.1)
        ? { images: [{ mimeType: tinyPng.mimeType, data: tinyPng.data }] }
        : {}),
    };

    // Tool rounds of this turn (turn 1 always has one, with a background shell command).
    const roundCount = !on("toolRounds")
      ? 0
      : turn === 1
        ? Math.max(
            1,
            random.weighted<number>([
              [1, 3],
              [2, 2],
            ]),
          )
        : random.weighted<number>([
            [0, 3],
            [1, 4],
            [2, 2],
            [3, 1],
          ]);
    const rounds: ToolRound[] = [];
    for (let r = 0; r < roundCount; r += 1) {
      const callCount = random.weighted<number>([
        [1, 5],
        [2, 3],
        [3, 1],
      ]);
      const calls = Array.from({ length: callCount }, (_, k) => {
        const forceBackground = on("background") && turn === 1 && r === 0 && k === 0;
        const tool = forceBackground ? "shell" : random.weighted(toolsByMode[mode]);
        let call = plannedCall(
          random,
          tool,
          Math.round(toolResultChars * (0.3 + random.next() * 2.2)),
        );
        if (forceBackground && !call.background) {
          call = {
            ...call,
            arguments: JSON.stringify({
              command: "pnpm test --watch=false",
              description: "Run the tests.",
              background: true,
            }),
            output: "Started in the background.",
            isError: false,
            background: true,
          };
        }
        if (!on("background") && call.background) call = { ...call, background: false };
        return { ...call, callId: `call-${turn + 1}-${r + 1}-${k + 1}` };
      });
      rounds.push({ calls });
    }
    const toolCallsReply = (round: ToolRound): FakeReply =>
      maybeReasoning(
        {
          type: "tool-calls",
          ...(random.chance(0.4) ? { text: "Let me look at the code first." } : {}),
          calls: round.calls.map((call) => ({
            name: call.name,
            arguments: call.arguments,
            callId: call.callId,
          })),
        },
        "which tools to call",
      );
    const finalReply = (): FakeReply =>
      maybeReasoning(
        {
          type: "text",
          text: `Done with turn ${turn + 1}: ${userQuery(random, turn).toLowerCase()}`,
          chunks: random.int(1, 4),
        },
        "the answer",
      );

    const userTurnIndex = events.length;
    const userTurnBody: RunRequestBody = {
      ...base(runId, mode),
      action: { type: "user-message", message },
      requestContext: requestContextVariants[variant]!,
    };
    events.push({
      type: "user-turn",
      index: userTurnIndex,
      body: userTurnBody,
      replies: [rounds[0] === undefined ? finalReply() : toolCallsReply(rounds[0])],
      expectedEnd: rounds.length > 0 ? "awaiting-tools" : "completed",
      turn,
      contextVariant: variant,
      contextChanged,
      contextReverted,
      modeSwitched,
      afterCompaction: compacted,
    });
    compacted = false;
    rounds.forEach((round, r) => {
      const next = rounds[r + 1];
      events.push({
        type: "tool-results",
        index: events.length,
        body: {
          ...base(runId, mode),
          action: {
            type: "tool-results",
            results: round.calls.map((call) => ({
              callId: call.callId,
              output: call.output,
              ...(call.isError ? { isError: true } : {}),
            })),
          },
        },
        replies: [next === undefined ? finalReply() : toolCallsReply(next)],
        expectedEnd: next === undefined ? "completed" : "awaiting-tools",
        turn,
        round: r,
      });
      for (const call of round.calls) {
        if (call.background) {
          pendingBackground.push({
            taskId: `task-${call.callId}`,
            toolCallId: call.callId,
            title: "pnpm test --watch=false",
          });
        }
      }
    });
    lastAcceptedRunId = runId;

    if (on("retries") && (turn === 0 || random.chance(0.1))) {
      events.push({
        type: "retry",
        index: events.length,
        body: userTurnBody,
        replies: [],
        expectedEnd: "completed",
        retryOf: userTurnIndex,
      });
    }

    if (
      on("background") &&
      pendingBackground.length > 0 &&
      (backgroundCount === 0 || random.chance(0.5))
    ) {
      backgroundCount += 1;
      const completions: SessionBackgroundCompletion[] = pendingBackground.map((task) => {
        const status = random.weighted<SessionBackgroundCompletion["status"]>([
          ["success", 3],
          ["error", 1],
          ["aborted", 1],
        ]);
        return {
          taskId: task.taskId,
          kind: "shell",
          status,
          title: task.title,
          ...(status === "aborted"
            ? {}
            : {
                detail: `${status === "success" ? "42 tests passed" : "3 tests failed"}\n${sourceFile(random, 300)}`,
              }),
          toolCallId: task.toolCallId,
        };
      });
      pendingBackground = [];
      const bgRunId = `run-bg-${backgroundCount}`;
      events.push({
        type: "background-completion",
        index: events.length,
        body: { ...base(bgRunId, mode), action: { type: "background-completion", completions } },
        replies: [
          maybeReasoning(
            { type: "text", text: "The background tests finished; here is what they mean." },
            "the task",
          ),
        ],
        expectedEnd: "completed",
        duplicate: false,
      });
      lastAcceptedRunId = bgRunId;
      if (backgroundCount === 1 || random.chance(0.4)) {
        const againRunId = `${bgRunId}-again`;
        events.push({
          type: "background-completion",
          index: events.length,
          body: {
            ...base(againRunId, mode),
            action: { type: "background-completion", completions },
          },
          replies: [],
          expectedEnd: "completed",
          duplicate: true,
        });
        lastAcceptedRunId = againRunId;
      }
    }

    if (on("injections") && (turn === 2 || (turn > 2 && random.chance(0.12)))) {
      injectionCount += 1;
      const injectRunId = `run-inject-${injectionCount}`;
      events.push({
        type: "inject-context",
        index: events.length,
        body: {
          ...base(injectRunId, mode),
          action: {
            type: "inject-context",
            injectionId: `inject-${injectionCount}`,
            ...(lastAcceptedRunId === undefined ? {} : { expectedRunId: lastAcceptedRunId }),
            text: `The user opened ${sourcePath(random)} and selected lines ${random.int(1, 50)}-${random.int(51, 120)}.`,
          },
        },
        replies: [{ type: "text", text: "Noted the file you opened." }],
        expectedEnd: "completed",
      });
      lastAcceptedRunId = injectRunId;
    }

    if (turn === compactionTurn) {
      const summarizeRunId = `run-summarize-${turn + 1}`;
      events.push({
        type: "summarize",
        index: events.length,
        body: { ...base(summarizeRunId, mode), action: { type: "summarize" } },
        replies: [
          {
            type: "text",
            text: `Summary of turns 1-${turn + 1}: the user is refactoring src/ with tests beside the code.`,
          },
        ],
        expectedEnd: "completed",
      });
      lastAcceptedRunId = summarizeRunId;
      compacted = true;
    }
  }
  return { seed: options.seed, conversationId, events, stats: sessionStats(events) };
}

/** Counts what a session contains. */
export function sessionStats(events: readonly SessionEvent[]): AgentSessionStats {
  const count = (predicate: (event: SessionEvent) => boolean) => events.filter(predicate).length;
  let toolCalls = 0;
  let toolOutputChars = 0;
  let providerCalls = 0;
  for (const event of events) {
    if (event.type === "restart") continue;
    providerCalls += event.replies.length;
    if (event.type === "tool-results" && event.body.action.type === "tool-results") {
      toolCalls += event.body.action.results.length;
      for (const result of event.body.action.results) toolOutputChars += result.output.length;
    }
  }
  return {
    userTurns: count((e) => e.type === "user-turn"),
    runRequests: count((e) => e.type !== "restart"),
    providerCalls,
    toolRounds: count((e) => e.type === "tool-results"),
    toolCalls,
    contextChanges: count((e) => e.type === "user-turn" && e.contextChanged),
    contextReverts: count((e) => e.type === "user-turn" && e.contextReverted),
    modeSwitches: count((e) => e.type === "user-turn" && e.modeSwitched),
    backgroundCompletions: count((e) => e.type === "background-completion" && !e.duplicate),
    duplicateDeliveries: count((e) => e.type === "background-completion" && e.duplicate),
    injections: count((e) => e.type === "inject-context"),
    retries: count((e) => e.type === "retry"),
    restarts: count((e) => e.type === "restart"),
    compactions: count((e) => e.type === "summarize"),
    toolOutputChars,
  };
}

/**
 * Sessions as a fast-check arbitrary (shrinks towards seed 0); a counterexample prints as the
 * options that regenerate it.
 */
export function agentSessionArbitrary(
  options: Omit<AgentSessionOptions, "seed">,
): fc.Arbitrary<AgentSession> {
  return fc.integer({ min: 0, max: 2 ** 31 - 1 }).map((seed) => {
    const session = generateAgentSession({ ...options, seed });
    Object.defineProperty(session, fc.toStringMethod, {
      value: () => `generateAgentSession(${JSON.stringify({ ...options, seed })})`,
    });
    return session;
  });
}
