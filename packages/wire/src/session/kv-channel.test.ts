import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import type { AgentServerMessage } from "../gen/agent_v1_pb.js";
import {
  GetBlobResultSchema,
  KvClientMessageSchema,
  KvErrorSchema,
  SetBlobResultSchema,
} from "../gen/agent_v1_pb.js";
import { sha256, toHex } from "../hex.js";
import { KvChannel, KvFailure } from "./kv-channel.js";
import { ManualTimers } from "./wire-timers.js";

function channel() {
  const timers = new ManualTimers();
  const sent: AgentServerMessage[] = [];
  const kv = new KvChannel({ send: (message) => sent.push(message), timers, timeoutMs: 10_000 });
  const ops = () =>
    sent.map((message) => {
      if (message.message.case !== "kvServerMessage") throw new Error("not kv");
      return message.message.value;
    });
  return { kv, timers, ops };
}

const blob = (text: string) => {
  const data = new TextEncoder().encode(text);
  return { id: toHex(sha256(data)), data };
};

const setResult = (id: number, error?: string) =>
  create(KvClientMessageSchema, {
    id,
    message: {
      case: "setBlobResult",
      value: create(
        SetBlobResultSchema,
        error === undefined ? {} : { error: create(KvErrorSchema, { message: error }) },
      ),
    },
  });

const pendingState = async (promise: Promise<unknown>) => {
  let state = "pending";
  promise.then(
    () => (state = "resolved"),
    () => (state = "rejected"),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return state;
};

describe("KV blob exchange", () => {
  it("resolves the barrier only when every blob has an error-free result, matched by id", async () => {
    const { kv, ops } = channel();
    const barrier = kv.setBlobs([blob("a"), blob("b"), blob("c")]);
    const sent = ops();
    expect(sent.map((op) => op.id)).toEqual([1, 2, 3]);
    expect(sent.map((op) => op.message.case)).toEqual([
      "setBlobArgs",
      "setBlobArgs",
      "setBlobArgs",
    ]);
    kv.deliver(setResult(3));
    kv.deliver(setResult(1));
    expect(await pendingState(barrier)).toBe("pending");
    kv.deliver(setResult(2));
    await expect(barrier).resolves.toBeUndefined();
    expect(kv.bytesSet).toBe(3);
  });

  it("fails the barrier on a KV error", async () => {
    const { kv } = channel();
    const barrier = kv.setBlobs([blob("a"), blob("b")]);
    kv.deliver(setResult(2, "disk full"));
    const error = await barrier.catch((e: unknown) => e);
    expect(KvFailure.isInstance(error)).toBe(true);
    expect((error as KvFailure).code).toBe("unavailable");
    expect((error as KvFailure).message).toContain("disk full");
  });

  it("fails the barrier after 10 s without every acknowledgement; a late answer is ignored", async () => {
    const { kv, timers } = channel();
    const barrier = kv.setBlobs([blob("a"), blob("b")]);
    kv.deliver(setResult(1));
    timers.advance(9_999);
    expect(await pendingState(barrier)).toBe("pending");
    timers.advance(1);
    const error = await barrier.catch((e: unknown) => e);
    expect((error as KvFailure).code).toBe("deadline_exceeded");
    expect((error as KvFailure).message).toContain("did not acknowledge 1 blob(s) within 10000 ms");
    expect(() => kv.deliver(setResult(2))).not.toThrow();
  });

  it("answers gets with the blob, or undefined when the client lacks it", async () => {
    const { kv } = channel();
    const id = sha256(new TextEncoder().encode("x"));
    const found = kv.getBlob(id);
    const missing = kv.getBlob(id);
    kv.deliver(
      create(KvClientMessageSchema, {
        id: 2,
        message: { case: "getBlobResult", value: create(GetBlobResultSchema, {}) },
      }),
    );
    kv.deliver(
      create(KvClientMessageSchema, {
        id: 1,
        message: {
          case: "getBlobResult",
          value: create(GetBlobResultSchema, { blobData: new TextEncoder().encode("x") }),
        },
      }),
    );
    expect(new TextDecoder().decode(await found)).toBe("x");
    expect(await missing).toBeUndefined();
  });

  it("acknowledges a repeated answer (a client replaying a reconnected stream)", async () => {
    const { kv } = channel();
    const barrier = kv.setBlobs([blob("a")]);
    kv.deliver(setResult(1));
    await barrier;
    expect(() => kv.deliver(setResult(1))).not.toThrow();
  });

  it("refuses a result for no pending operation, or of the wrong kind", () => {
    const { kv } = channel();
    expect(() => kv.deliver(setResult(7))).toThrow(
      "kv_client_message 7 answers no pending KV operation",
    );
    void kv.getBlob(new Uint8Array(32));
    expect(() => kv.deliver(setResult(1))).toThrow("must be a get_blob_result");
  });
});
