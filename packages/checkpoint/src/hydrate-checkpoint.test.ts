import {
  HistoryConflictError,
  createRuntimeMessage,
  createToolResultMessage,
  sha256Hex,
} from "@cursor/run";
import { describe, expect, it, vi } from "vitest";
import { expectReason } from "./__fixtures__/expect-checkpoint-error.js";
import { agentConversation, buildHistory } from "./__fixtures__/histories.js";
import { conversationId, stateOf, testSecret } from "./__fixtures__/states.js";
import { CheckpointError } from "./checkpoint-error.js";
import { decodeCheckpoint } from "./decode-checkpoint.js";
import { createCheckpointEncodeCache } from "./encode-cache.js";
import { encodeCheckpoint } from "./encode-checkpoint.js";
import { headDigestOf } from "./head-digest.js";
import { hydrateCheckpoint } from "./hydrate-checkpoint.js";

const built = buildHistory({
  epoch: 2,
  summary: "before",
  pendingAtEnd: true,
  turns: [
    {
      context: "rules A",
      runtimeKind: "user-turn",
      text: "first",
      image: { type: "image", mimeType: "image/png", data: "AAAA" },
      userMessage: true,
      steps: [
        {
          text: "",
          reasoning: "think",
          replay: { openai: { item: "enc" } },
          toolCalls: [
            { name: "read_file", arguments: "{}", result: "one", isError: false, image: undefined },
          ],
        },
      ],
    },
    {
      context: undefined,
      runtimeKind: "user-turn",
      text: "second",
      image: undefined,
      userMessage: false,
      steps: [
        {
          text: "",
          reasoning: "",
          replay: {},
          toolCalls: [
            { name: "grep", arguments: '{"q":1}', result: "", isError: false, image: undefined },
          ],
        },
      ],
    },
  ],
});
const state = stateOf(built);

describe("hydrateCheckpoint", () => {
  it("rebuilds the exact history after a decode: ids, event ids, rounds and pending calls", () => {
    const token = encodeCheckpoint({ state, secret: testSecret });
    const hydrated = hydrateCheckpoint(decodeCheckpoint({ token, secret: testSecret }));
    expect(hydrated).toMatchObject({
      conversationId,
      epoch: 2,
      headDigest: built.history.headDigest,
      latestRequestContextId: built.latestRequestContextId,
      promptSpecDigest: undefined,
      turns: built.turns,
    });
    const { history } = hydrated;
    expect(history.messages).toEqual(built.history.messages);
    expect(history.headDigest).toBe(built.history.headDigest);
    expect(history.latestRequestContext()).toEqual(built.history.latestRequestContext());
    expect(history.pendingToolCalls()).toEqual(built.history.pendingToolCalls());
    expect(history.pendingToolCalls()).toHaveLength(1);
    for (const message of built.history.messages) {
      if ("eventId" in message) expect(history.findByEventId(message.eventId)).toEqual(message);
    }
    expect(Object.isFrozen(hydrated.turns[0])).toBe(true);
  });

  it("keeps dedup and idempotence working on the hydrated log", () => {
    const { history } = hydrateCheckpoint(
      decodeCheckpoint({
        token: encodeCheckpoint({ state, secret: testSecret }),
        secret: testSecret,
      }),
    );
    const head = history.headDigest;
    const context = history.latestRequestContext()!;
    // The same request context and runtime event again (a retried turn): nothing appended.
    const runtime = built.history.messages.find((message) => message.kind === "runtime")!;
    expect(history.append([structuredClone(context), structuredClone(runtime)])).toEqual({
      appended: [],
      unchanged: [context, history.get(runtime.id)],
      digests: [],
      headDigest: head,
      length: history.length,
    });
    expect(history.headDigest).toBe(head);
    // Same id, other content; same event id under another id: conflicts.
    expect(() => history.append({ ...context, text: "rules B" })).toThrow(HistoryConflictError);
    expect(() =>
      history.append(
        createRuntimeMessage({
          eventId: runtime.eventId,
          runtimeKind: "injected-context",
          content: [{ type: "text", text: "other" }],
        }),
      ),
    ).toThrow(HistoryConflictError);
    // The pending call can be answered once, and the answer then dedups.
    const [pending] = history.pendingToolCalls();
    const result = createToolResultMessage({
      callId: pending!.callId,
      name: pending!.name,
      content: "r",
    });
    expect(history.append(result).appended).toHaveLength(1);
    expect(history.append(result).appended).toHaveLength(0);
  });

  it("resumes on a fresh copy of the package (no shared caches), as after a restart", async () => {
    const token = encodeCheckpoint({ state, secret: testSecret, audience: "tenant-a" });
    vi.resetModules();
    const fresh = await import("./index.js");
    const hydrated = fresh.hydrateCheckpoint(
      fresh.decodeCheckpoint({ token, secret: testSecret, audience: "tenant-a", conversationId }),
    );
    expect(hydrated.history.messages).toEqual(built.history.messages);
    const runtime = built.history.messages.find((message) => message.kind === "runtime")!;
    expect(hydrated.history.append(structuredClone(runtime)).appended).toEqual([]);
    // @cursor/run was loaded afresh too: its errors are recognised through their markers.
    let conflict: unknown;
    try {
      hydrated.history.append({ ...runtime, content: [{ type: "text", text: "edited" }] });
    } catch (error) {
      conflict = error;
    }
    expect(HistoryConflictError.isInstance(conflict)).toBe(true);
    // Its errors are still recognised by this copy of the package.
    try {
      fresh.decodeCheckpoint({ token, secret: testSecret, audience: "tenant-b" });
      expect.unreachable();
    } catch (error) {
      expect(CheckpointError.isInstance(error)).toBe(true);
      expect(error).not.toBeInstanceOf(CheckpointError);
    }
    // And its token is this copy's token: the format does not depend on process state.
    expect(fresh.encodeCheckpoint({ state, secret: testSecret, audience: "tenant-a" })).toBe(token);
  });

  it("lets the next encode of the hydrated history skip hashing and compression", () => {
    const long = stateOf(agentConversation(40));
    const cache = createCheckpointEncodeCache();
    const token = encodeCheckpoint({ state: long, secret: testSecret, cache });
    const { history, turns } = hydrateCheckpoint(decodeCheckpoint({ token, secret: testSecret }));
    const compressed = cache.stats.segmentsCompressed;
    const again = encodeCheckpoint({
      state: { ...long, messages: [...history.messages], turns: [...turns] },
      secret: testSecret,
      cache,
    });
    expect(again).toBe(token);
    expect(cache.stats.segmentsCompressed).toBe(compressed);
  });

  it("refuses messages that are not a valid history", () => {
    const orphan = createToolResultMessage({ callId: "call_none", name: "grep", content: "" });
    const invalid = {
      ...state,
      epoch: 0,
      messages: [orphan],
      headDigest: headDigestOf(0, [sha256Hex(JSON.stringify(orphan))]),
    };
    expectReason(() => hydrateCheckpoint(invalid), "invalid-history");
    // A repeated message is a no-op for the log; hydration must not let it vanish.
    const duplicate = { ...state, messages: [...state.messages, state.messages[1]!] };
    expectReason(() => hydrateCheckpoint(duplicate), "invalid-history");
  });

  it("refuses a head digest that is not the history's, and invalid states", () => {
    expectReason(
      () => hydrateCheckpoint({ ...state, headDigest: sha256Hex("x") }),
      "head-mismatch",
    );
    expectReason(() => hydrateCheckpoint({ ...state, epoch: 3 }), "head-mismatch");
    expectReason(
      () => hydrateCheckpoint({ ...state, turns: [{ ...state.turns[0]!, eventId: "" }] }),
      "invalid-state",
    );
    expectReason(
      () => hydrateCheckpoint({ ...state, conversationId: undefined } as never),
      "invalid-state",
    );
  });
});
