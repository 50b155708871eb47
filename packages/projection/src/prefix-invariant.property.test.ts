import { decodeCheckpoint } from "@cursor/checkpoint";
import { compileRequestContext, createCursorPromptSpec } from "@cursor/request";
import type { RequestContextInput } from "@cursor/request";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { headFromCheckpointState } from "./checkpoint-projection.js";
import { RunIdMismatchError, ToolResultConflictError } from "./projection-errors.js";
import { contextIds, expectPrefixOf } from "./testing/prefix-assertions.js";
import {
  backgroundCompletion,
  injectContext,
  requestContext,
  summarize,
  toolResults,
  userMessage,
} from "./testing/requests.js";
import type { Mode } from "./testing/requests.js";
import { TestGateway, testCheckpointSecret } from "./testing/test-gateway.js";

// Three contexts; sequences pick them at random, so changes and reversions (A → B → A) occur.
const contexts: readonly RequestContextInput[] = [
  requestContext(""),
  requestContext(" M src/app.ts"),
  requestContext("", "Prefer small functions. Write tests first."),
];
const digests = contexts.map((context) => compileRequestContext(context)!.digest);
const promptSpec = createCursorPromptSpec({
  modelDisplayName: "Test Model",
  mcpServers: requestContext("").mcp.servers,
});

type Op =
  | { op: "user"; context: number | null; mode: Mode; toolRound: boolean; compact: boolean }
  | { op: "retry" }
  | { op: "edit" }
  | { op: "tool-results"; compact: boolean }
  | { op: "background"; task: number; kind: "shell" | "subagent" }
  | { op: "inject"; injection: number; stale: boolean }
  | { op: "summarize" }
  | { op: "checkpoint" }
  | { op: "restart" };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant("user" as const),
      context: fc.option(fc.integer({ min: 0, max: 2 }), { freq: 5 }),
      mode: fc.constantFrom<Mode>("agent", "ask", "plan", "debug"),
      toolRound: fc.boolean(),
      // One user turn in five compacts automatically (its model call is over budget).
      compact: fc.integer({ min: 0, max: 4 }).map((value) => value === 0),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ op: "retry" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "edit" as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("tool-results" as const),
      // One continuation in four compacts automatically before its model call.
      compact: fc.integer({ min: 0, max: 3 }).map((value) => value === 0),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("background" as const),
      task: fc.integer({ min: 0, max: 2 }),
      kind: fc.constantFrom("shell" as const, "subagent" as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("inject" as const),
      injection: fc.integer({ min: 0, max: 2 }),
      stale: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: "summarize" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "checkpoint" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "restart" as const }) },
);

/** What the conversation must look like, tracked independently of the implementation. */
interface Model {
  latestDigest: string | undefined;
  contextMessages: number;
  pendingCallIds: string[];
  lastUser: Record<string, unknown> | undefined;
  lastUserText: string;
  /** The run id `expectedRunId` may name, when the previous request started a new event. */
  expectableRunId: string | undefined;
  delivered: Set<string>;
  checkpoint: string | undefined;
  sendCheckpoint: boolean;
  runs: number;
  messages: number;
}

async function runSequence(ops: readonly Op[]): Promise<void> {
  const gateway = new TestGateway({ promptSpec });
  const model: Model = {
    latestDigest: undefined,
    contextMessages: 0,
    pendingCallIds: [],
    lastUser: undefined,
    lastUserText: "",
    expectableRunId: undefined,
    delivered: new Set(),
    checkpoint: undefined,
    sendCheckpoint: false,
    runs: 0,
    messages: 0,
  };
  const nextRunId = () => `r${(model.runs += 1)}`;
  const withCheckpoint = (body: Record<string, unknown>) =>
    model.sendCheckpoint && model.checkpoint !== undefined
      ? { ...body, checkpoint: model.checkpoint }
      : body;

  const send = async (body: Record<string, unknown>) => {
    const result = await gateway.send(withCheckpoint(body));
    model.sendCheckpoint = false;
    model.checkpoint = result.checkpoint;
    const calls = result.outcome?.assistant?.toolCalls ?? [];
    if (result.outcome?.reason === "awaiting-tools")
      model.pendingCallIds = calls.map((c) => c.callId);
    return result;
  };

  /** A new event closes open calls and, for a user turn, may add one context message. */
  const newEvent = (context: number | null) => {
    model.pendingCallIds = [];
    if (context !== null && digests[context] !== model.latestDigest) {
      model.latestDigest = digests[context];
      model.contextMessages += 1;
    }
  };
  const autoCompacted = () => {
    model.contextMessages = model.latestDigest === undefined ? 0 : 1;
  };

  for (const step of ops) {
    const callsBefore = gateway.provider.calls.length;
    switch (step.op) {
      case "user":
      case "edit": {
        const context = step.op === "user" ? step.context : null;
        const messageId =
          step.op === "edit" && model.lastUser !== undefined
            ? (model.lastUser["action"] as { message: { id: string } }).message.id
            : `m${model.runs + 1}`;
        model.lastUserText =
          step.op === "edit" ? `${model.lastUserText} (edited)` : `question ${model.runs + 1}`;
        const body = userMessage({
          runId: nextRunId(),
          messageId,
          text: model.lastUserText,
          mode: step.op === "user" ? step.mode : "agent",
          context: context === null ? undefined : contexts[context],
        });
        if (step.op === "user" && step.toolRound) {
          gateway.provider.script({
            toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }],
          });
        }
        if (step.op === "user" && step.compact) gateway.budgetTokens = 1;
        const result = await send(body);
        gateway.budgetTokens = undefined;
        expect(result.plan.retry).toBe(false);
        newEvent(context);
        if (step.op === "user" && step.toolRound) {
          model.pendingCallIds = result.outcome!.assistant!.toolCalls.map((c) => c.callId);
        }
        if ((result.outcome?.compactions.length ?? 0) > 0) autoCompacted();
        model.lastUser = body;
        model.expectableRunId = result.plan.runId;
        break;
      }
      case "retry": {
        if (model.lastUser === undefined) continue;
        const digest = gateway.head("c1")!.history.headDigest;
        const result = await send(model.lastUser);
        expect(result.plan.retry).toBe(true);
        expect(result.plan.appended).toEqual([]);
        expect(result.head.history.headDigest).toBe(digest);
        expect(gateway.provider.calls.length).toBe(callsBefore);
        model.expectableRunId = undefined;
        break;
      }
      case "tool-results": {
        const runId = model.lastUser?.["runId"] as string | undefined;
        if (model.pendingCallIds.length === 0 || runId === undefined) {
          await expect(
            send(
              toolResults({
                runId: runId ?? "r0",
                results: [{ callId: "call_unknown", output: "?" }],
              }),
            ),
          ).rejects.toSatisfy((error: unknown) => ToolResultConflictError.isInstance(error));
          break;
        }
        if (step.compact) gateway.budgetTokens = 1;
        const result = await send(
          toolResults({
            runId,
            results: model.pendingCallIds.map((callId) => ({
              callId,
              output: `result of ${callId}`,
            })),
          }),
        );
        gateway.budgetTokens = undefined;
        if ((result.outcome?.compactions.length ?? 0) > 0) autoCompacted();
        expect(result.plan.next).toBe("call-model");
        expect(result.outcome?.reason).toBe("completed");
        model.pendingCallIds = [];
        model.expectableRunId = undefined;
        break;
      }
      case "background": {
        const eventId = `bg.${step.kind}.t${step.task}.-`;
        const fresh = !model.delivered.has(eventId);
        const result = await send(
          backgroundCompletion({
            runId: nextRunId(),
            completions: [{ taskId: `t${step.task}`, kind: step.kind }],
            context: contexts[1],
          }),
        );
        // Fresh: closing results for abandoned calls (if any), then the one runtime message.
        expect(result.plan.appended.map((m) => m.kind)).toEqual(
          fresh ? [...model.pendingCallIds.map(() => "tool-result"), "runtime"] : [],
        );
        expect(result.plan.appended.at(-1)?.id).toBe(fresh ? `runtime:${eventId}` : undefined);
        expect(gateway.provider.calls.length).toBe(callsBefore + (fresh ? 1 : 0));
        if (fresh) newEvent(null);
        model.delivered.add(eventId);
        model.expectableRunId = fresh ? result.plan.runId : undefined;
        break;
      }
      case "inject": {
        const eventId = `inject.i${step.injection}`;
        const fresh = !model.delivered.has(eventId);
        const body = injectContext({
          runId: nextRunId(),
          injectionId: `i${step.injection}`,
          text: `injected ${step.injection}`,
          context: contexts[2],
          ...(step.stale
            ? { expectedRunId: "r-stale" }
            : model.expectableRunId === undefined
              ? {}
              : { expectedRunId: model.expectableRunId }),
        });
        if (fresh && step.stale) {
          await expect(send(body)).rejects.toSatisfy((error: unknown) =>
            RunIdMismatchError.isInstance(error),
          );
          break;
        }
        const result = await send(body);
        expect(gateway.provider.calls.length).toBe(callsBefore + (fresh ? 1 : 0));
        if (fresh) newEvent(null);
        model.delivered.add(eventId);
        model.expectableRunId = fresh ? result.plan.runId : undefined;
        break;
      }
      case "summarize": {
        const result = await send(summarize({ runId: nextRunId() }));
        if (result.plan.next === "compact") {
          model.latestDigest = undefined;
          model.contextMessages = 0;
          model.pendingCallIds = [];
          expect(result.head.history.messages.map((m) => m.kind)).toEqual(["summary"]);
        }
        model.expectableRunId = undefined;
        break;
      }
      case "checkpoint": {
        if (model.checkpoint === undefined) continue;
        const live = gateway.head("c1")!;
        const hydrated = headFromCheckpointState(
          decodeCheckpoint({ token: model.checkpoint, secret: testCheckpointSecret }),
        );
        expect(hydrated.history.messages).toEqual(live.history.messages);
        expect(hydrated.history.headDigest).toBe(live.history.headDigest);
        expect(hydrated.turns).toEqual(live.turns);
        model.sendCheckpoint = true;
        continue;
      }
      case "restart":
        gateway.restart();
        continue;
      default: {
        const exhaustive: never = step;
        throw new Error(`unknown op ${JSON.stringify(exhaustive)}`);
      }
    }
    const head = gateway.head("c1");
    if (head === undefined) continue;
    // Exactly the expected context messages, the latest one being the latest context sent.
    const contextMessages = head.history.messages.filter((m) => m.kind === "request-context");
    expect(contextMessages).toHaveLength(model.contextMessages);
    expect(head.history.latestRequestContext()?.digest).toBe(model.latestDigest);
    // Every provider call of this step saw exactly the epoch's context messages.
    for (const call of gateway.provider.calls.slice(callsBefore)) {
      expect(contextIds(call.request)).toHaveLength(model.contextMessages);
    }
  }

  // Invariant 1 and 2 within every epoch: each request extends the one before it exactly.
  const calls = gateway.provider.calls;
  for (let index = 1; index < calls.length; index += 1) {
    if (calls[index]!.epoch === calls[index - 1]!.epoch) {
      expectPrefixOf(calls[index - 1]!.request, calls[index]!.request);
    } else {
      expect(calls[index]!.epoch).toBeGreaterThan(calls[index - 1]!.epoch);
    }
  }
}

describe("prefix invariant (property)", () => {
  it("holds within every epoch over random sequences of turns, retries, events, checkpoints and restarts", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArbitrary, { minLength: 1, maxLength: 14 }), runSequence),
      { numRuns: 30, seed: 20261129, endOnFailure: true },
    );
  }, 30_000);
});
