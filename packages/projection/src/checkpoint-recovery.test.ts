import { decodeCheckpoint, encodeCheckpoint } from "@cursor/checkpoint";
import { compileRequestContext, createCursorPromptSpec } from "@cursor/request";
import { describe, expect, it } from "vitest";
import { headFromCheckpointState, headToCheckpointState } from "./checkpoint-projection.js";
import { contextIds, expectPrefixOf, ids } from "./testing/prefix-assertions.js";
import { requestContext, userMessage } from "./testing/requests.js";
import { TestGateway } from "./testing/test-gateway.js";

const contextA = requestContext("");
const promptSpec = createCursorPromptSpec({ modelDisplayName: "Test Model" });
const secret = "projection-test-secret-0123456789abcdef";
const contextDigest = compileRequestContext(contextA)!.digest;

describe("checkpoint-recovery", () => {
  it("request-context identity and content survive encode → decode → hydrate", async () => {
    const gateway = new TestGateway({ promptSpec });
    const { head, checkpoint } = await gateway.send(
      userMessage({ runId: "r1", messageId: "m1", text: "hello", context: contextA }),
    );
    const hydrated = headFromCheckpointState(
      decodeCheckpoint({
        token: checkpoint,
        secret: "projection-test-secret-0123456789abcdef",
        conversationId: "c1",
      }),
    );
    const original = head.history.latestRequestContext();
    expect(original?.id).toBe(`request-context:ctx.m1.${contextDigest.slice(0, 16)}`);
    expect(hydrated.history.latestRequestContext()).toEqual(original);
    expect(hydrated.history.messages).toEqual(head.history.messages);
    expect(hydrated.history.headDigest).toBe(head.history.headDigest);
    expect(hydrated.history.epoch).toBe(head.history.epoch);
    expect(hydrated.turns).toEqual(head.turns);
    expect(hydrated.lastRunId).toBe("r1");
    const runtime = head.history.messages[1]!;
    expect(
      hydrated.history.findByEventId(runtime.kind === "runtime" ? runtime.eventId : ""),
    ).toEqual(runtime);
  });

  it("a head → state → head round trip is exact and names the latest context", async () => {
    const gateway = new TestGateway({ promptSpec });
    const { head } = await gateway.send(
      userMessage({ runId: "r1", messageId: "m1", text: "hello", context: contextA }),
    );
    const state = headToCheckpointState(head, { promptSpecDigest: promptSpec.digest });
    expect(state).toMatchObject({
      conversationId: "c1",
      epoch: 0,
      latestRequestContextId: `request-context:ctx.m1.${contextDigest.slice(0, 16)}`,
      promptSpecDigest: promptSpec.digest,
      headDigest: head.history.headDigest,
      turns: head.turns,
    });
    const token = encodeCheckpoint({ state, secret });
    const back = headFromCheckpointState(decodeCheckpoint({ token, secret }));
    expect(headToCheckpointState(back, { promptSpecDigest: promptSpec.digest })).toEqual(state);
  });

  it("a turn after hydration on a fresh store appends no duplicate context", async () => {
    const original = new TestGateway({ promptSpec });
    const { checkpoint } = await original.send(
      userMessage({ runId: "r1", messageId: "m1", text: "one", context: contextA }),
    );
    const fresh = new TestGateway({ promptSpec });
    const second = await fresh.send(
      userMessage({ runId: "r2", messageId: "m2", text: "two", context: contextA, checkpoint }),
    );
    expect(second.plan.appended.map((message) => message.kind)).toEqual(["runtime"]);
    const before = original.provider.calls[0]!.request;
    const after = fresh.provider.calls[0]!.request;
    expectPrefixOf(before, after);
    expect(contextIds(after)).toEqual([`request-context:ctx.m1.${contextDigest.slice(0, 16)}`]);
  });

  it("without a checkpoint, dedup after a restart compares with the persisted head", async () => {
    const gateway = new TestGateway({ promptSpec });
    await gateway.send(
      userMessage({ runId: "r1", messageId: "m1", text: "one", context: contextA }),
    );
    gateway.restart();
    const second = await gateway.send(
      userMessage({ runId: "r2", messageId: "m2", text: "two", context: contextA }),
    );
    expect(second.plan.appended.map((message) => message.kind)).toEqual(["runtime"]);
    expect(contextIds(gateway.provider.calls[1]!.request)).toHaveLength(1);
  });

  it("a retry after restart is idempotent, from the store and from the checkpoint", async () => {
    const gateway = new TestGateway({ promptSpec });
    const turn = userMessage({ runId: "r1", messageId: "m1", text: "one", context: contextA });
    const first = await gateway.send(turn);
    const headDigest = first.head.history.headDigest;
    gateway.restart();
    const fromStore = await gateway.send(turn);
    expect(fromStore.plan).toMatchObject({
      retry: true,
      next: "done",
      appended: [],
    });
    expect(fromStore.head.history.headDigest).toBe(headDigest);
    const fresh = new TestGateway({ promptSpec });
    const fromCheckpoint = await fresh.send({ ...turn, checkpoint: first.checkpoint });
    expect(fromCheckpoint.plan).toMatchObject({
      retry: true,
      next: "done",
      appended: [],
    });
    expect(fromCheckpoint.head.history.headDigest).toBe(headDigest);
    expect(gateway.provider.calls).toHaveLength(1);
    expect(fresh.provider.calls).toHaveLength(0);
    expect(ids(gateway.provider.calls[0]!.request)).toHaveLength(2);
  });
});
