import {
  HistoryLog,
  backgroundCompletionEventId,
  createAssistantMessage,
  createRequestContextMessage,
  createRuntimeMessage,
  createSummaryMessage,
  createToolResultMessage,
  createUserMessage,
  deepFreeze,
  injectionEventId,
  requestContextEventId,
  sha256Hex,
  shortDigest,
  userMessageId,
  userTurnEventId,
} from "@cursor/run";
import type { CanonicalMessage, ContentPart, ImagePart, JsonValue, RuntimeKind } from "@cursor/run";
import fc from "fast-check";
import type { CheckpointTurn } from "../checkpoint-state.js";

// Test histories: a plan (what each turn contains) is generated, then built deterministically
// through the @cursor/run builders and id catalog, so every history is one HistoryLog accepts.

interface ToolCallPlan {
  name: string;
  arguments: string;
  result: string;
  isError: boolean;
  image: ImagePart | undefined;
}

interface StepPlan {
  text: string;
  reasoning: string;
  replay: Record<string, JsonValue>;
  toolCalls: ToolCallPlan[];
}

interface TurnPlan {
  context: string | undefined;
  runtimeKind: RuntimeKind;
  text: string;
  image: ImagePart | undefined;
  userMessage: boolean;
  steps: StepPlan[];
}

export interface HistoryPlan {
  epoch: number;
  summary: string;
  turns: TurnPlan[];
  /** Leave the last turn's last tool calls unanswered (a run that ended awaiting tools). */
  pendingAtEnd: boolean;
}

export interface BuiltHistory {
  epoch: number;
  /** The log's own (frozen) messages. */
  messages: CanonicalMessage[];
  turns: CheckpointTurn[];
  latestRequestContextId: string | undefined;
  history: HistoryLog;
}

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constantFrom("", "héllo wörld ✓ 🚀", '{"json":"inside"}', "line\nbreak\ttab"),
);

const image: fc.Arbitrary<ImagePart> = fc.record({
  type: fc.constant("image" as const),
  mimeType: fc.constantFrom("image/png", "image/jpeg", "image/webp"),
  data: fc.uint8Array({ minLength: 0, maxLength: 24 }).map((bytes) =>
    Buffer.from(bytes).toString("base64"),
  ),
});

const jsonKey = fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,8}$/);
const jsonLeaf: fc.Arbitrary<JsonValue> = fc.oneof(
  text,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((value) => !Object.is(value, -0)),
  fc.boolean(),
  fc.constant(null),
);
const jsonValue: fc.Arbitrary<JsonValue> = fc.oneof(
  jsonLeaf,
  fc.array(jsonLeaf, { maxLength: 3 }),
  fc.dictionary(jsonKey, jsonLeaf, { maxKeys: 3 }),
);

const toolCall: fc.Arbitrary<ToolCallPlan> = fc.record({
  name: fc.constantFrom("read_file", "run_terminal_cmd", "grep", "mcp_db_query"),
  arguments: fc.oneof(fc.constant("{}"), jsonValue.map((value) => JSON.stringify({ value }))),
  result: text,
  isError: fc.boolean(),
  image: fc.option(image, { nil: undefined }),
});

const step: fc.Arbitrary<StepPlan> = fc.record({
  text,
  reasoning: text,
  replay: fc.dictionary(fc.constantFrom("openai", "anthropic"), jsonValue, { maxKeys: 2 }),
  toolCalls: fc.array(toolCall, { maxLength: 3 }),
});

const turn: fc.Arbitrary<TurnPlan> = fc.record({
  context: fc.option(text, { nil: undefined }),
  runtimeKind: fc.constantFrom<RuntimeKind>("user-turn", "background-completion", "injected-context"),
  text,
  image: fc.option(image, { nil: undefined }),
  userMessage: fc.boolean(),
  steps: fc.array(step, { maxLength: 3 }),
});

export function historyPlanArbitrary({
  maxTurns = 6,
}: { maxTurns?: number } = {}): fc.Arbitrary<HistoryPlan> {
  return fc.record({
    epoch: fc.nat(3),
    summary: text,
    turns: fc.array(turn, { maxLength: maxTurns }),
    pendingAtEnd: fc.boolean(),
  });
}

/** Builds the history a plan describes; ids come from the id catalog and a counter. */
export function buildHistory(plan: HistoryPlan): BuiltHistory {
  const messages: CanonicalMessage[] = [];
  const turns: CheckpointTurn[] = [];
  let latestRequestContextId: string | undefined;
  let callCounter = 0;
  if (plan.epoch > 0) {
    messages.push(createSummaryMessage({ summarizedEpoch: plan.epoch - 1, text: plan.summary }));
  }
  plan.turns.forEach((turnPlan, turnIndex) => {
    const clientMessageId = `m${turnIndex}`;
    const runId = `r${turnIndex}`;
    const added: CanonicalMessage[] = [];
    if (turnPlan.context !== undefined) {
      const digest = sha256Hex(turnPlan.context);
      const context = createRequestContextMessage({
        eventId: requestContextEventId({ clientMessageId, contextDigest: digest }),
        digest,
        text: turnPlan.context,
      });
      latestRequestContextId = context.id;
      added.push(context);
    }
    const content: ContentPart[] = [{ type: "text", text: turnPlan.text }];
    if (turnPlan.image !== undefined) content.push(turnPlan.image);
    const runtime = createRuntimeMessage({
      eventId: runtimeEventId(turnPlan.runtimeKind, clientMessageId, content),
      runtimeKind: turnPlan.runtimeKind,
      content,
    });
    added.push(runtime);
    if (turnPlan.userMessage) {
      added.push(createUserMessage({ id: userMessageId(clientMessageId), content }));
    }
    const lastTurn = turnIndex === plan.turns.length - 1;
    turnPlan.steps.forEach((stepPlan, stepIndex) => {
      const calls = stepPlan.toolCalls.map((call) => ({ ...call, callId: `call_${callCounter++}` }));
      added.push(
        createAssistantMessage({
          runId,
          step: stepIndex,
          text: stepPlan.text,
          reasoning: stepPlan.reasoning,
          replay: stepPlan.replay,
          // Reverse order with descending indexes: the stored order must survive as it was.
          toolCalls: calls
            .map((call, index) => ({
              index: calls.length - 1 - index,
              callId: call.callId,
              name: call.name,
              arguments: call.arguments,
            }))
            .reverse(),
        }),
      );
      const lastStep = stepIndex === turnPlan.steps.length - 1;
      if (plan.pendingAtEnd && lastTurn && lastStep) return;
      for (const call of calls) {
        added.push(
          createToolResultMessage({
            callId: call.callId,
            name: call.name,
            content: call.result,
            isError: call.isError,
            ...(call.image === undefined ? {} : { image: call.image }),
          }),
        );
      }
    });
    messages.push(...added);
    turns.push({
      clientMessageId,
      eventId: runtime.eventId,
      runId,
      messageIds: added.map((message) => message.id),
    });
  });
  const history = new HistoryLog({ epoch: plan.epoch, messages });
  return {
    epoch: plan.epoch,
    messages: [...history.messages],
    turns,
    latestRequestContextId,
    history,
  };
}

function runtimeEventId(kind: RuntimeKind, clientMessageId: string, content: ContentPart[]): string {
  switch (kind) {
    case "user-turn":
      return userTurnEventId({ clientMessageId, contentDigest: shortDigest(content) });
    case "background-completion":
      return backgroundCompletionEventId({ kind: "shell", taskId: clientMessageId });
    case "injected-context":
      return injectionEventId(clientMessageId);
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown runtime kind ${String(unreachable)}`);
    }
  }
}

/**
 * A deterministic conversation of `turnCount` agent turns (runtime → assistant with a tool call →
 * tool result → assistant), a request context every 10 turns. Frozen like HistoryLog output.
 */
export function agentConversation(turnCount: number): BuiltHistory {
  const plan: HistoryPlan = {
    epoch: 0,
    summary: "",
    pendingAtEnd: false,
    turns: Array.from({ length: turnCount }, (_, index) => ({
      context: index % 10 === 0 ? `rules revision ${index / 10}` : undefined,
      runtimeKind: "user-turn" as const,
      text: `question ${index}: please look at src/file-${index}.ts`,
      image: undefined,
      userMessage: false,
      steps: [
        {
          text: "",
          reasoning: `reasoning ${index}`,
          replay: {},
          toolCalls: [
            {
              name: "read_file",
              arguments: JSON.stringify({ path: `src/file-${index}.ts` }),
              result: `export const value${index} = ${index};\n`.repeat(4),
              isError: false,
              image: undefined,
            },
          ],
        },
        { text: `answer ${index}`, reasoning: "", replay: {}, toolCalls: [] },
      ],
    })),
  };
  const built = buildHistory(plan);
  return { ...built, turns: deepFreeze(built.turns) };
}
