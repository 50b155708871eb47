import { describe, expect, it } from "vitest";
import { ConnectError } from "../connect/connect-error.js";
import { AppendSequencer } from "./append-sequencer.js";
import { ManualTimers } from "./wire-timers.js";

function sequencer({
  window = 8,
  fail,
  first,
}: { window?: number; fail?: string; first?: string } = {}) {
  const timers = new ManualTimers();
  const delivered: string[] = [];
  const gaps: number[] = [];
  const instance = new AppendSequencer<string>({
    timers,
    window,
    gapTimeoutMs: 30_000,
    deliver: (message) => {
      if (message === fail)
        throw new ConnectError({ code: "failed_precondition", message: `bad ${message}` });
      delivered.push(message);
    },
    onGapTimeout: (missing) => gaps.push(missing),
    ...(first === undefined ? {} : { startsSequence: (message: string) => message === first }),
  });
  return { instance, timers, delivered, gaps };
}

const settled = async (promise: Promise<unknown>) => {
  let state = "pending";
  promise.then(
    () => (state = "resolved"),
    () => (state = "rejected"),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return state;
};

describe("append ordering", () => {
  it("delivers in seqno order from 0, holding a gap until it fills", async () => {
    const { instance, delivered } = sequencer();
    const two = instance.submit({ seqno: 2n, message: "c" });
    const one = instance.submit({ seqno: 1n, message: "b" });
    expect(delivered).toEqual([]);
    expect(await settled(two)).toBe("pending");
    await instance.submit({ seqno: 0n, message: "a" });
    await Promise.all([one, two]);
    expect(delivered).toEqual(["a", "b", "c"]);
  });

  it("acknowledges and drops duplicates, delivered or held", async () => {
    const { instance, delivered } = sequencer();
    await instance.submit({ seqno: 0n, message: "a" });
    await instance.submit({ seqno: 0n, message: "a again" });
    const held = instance.submit({ seqno: 2n, message: "c" });
    const heldTwice = instance.submit({ seqno: 2n, message: "c again" });
    await instance.submit({ seqno: 1n, message: "b" });
    await Promise.all([held, heldTwice]);
    expect(delivered).toEqual(["a", "b", "c"]);
  });

  it("refuses a seqno far past the window and a negative one, precisely", () => {
    const { instance } = sequencer({ window: 8 });
    expect(() => instance.check(8n)).toThrow(
      "append_seqno 8 is 8 past the next expected append 0; at most 7 may be outstanding",
    );
    expect(() => instance.check(-1n)).toThrow("append_seqno -1 is out of range (0 or more)");
    expect(instance.check(7n)).toBe(7);
  });

  it("fails the held appends when a gap stays open for 30 s", async () => {
    const { instance, timers, gaps } = sequencer();
    await instance.submit({ seqno: 0n, message: "a" });
    const held = instance.submit({ seqno: 2n, message: "c" });
    timers.advance(29_999);
    expect(await settled(held)).toBe("pending");
    timers.advance(1);
    await expect(held).rejects.toThrow("append 1 did not arrive within 30000 ms");
    expect(gaps).toEqual([1]);
  });

  it("reports a delivery error on the append that carried it and goes on", async () => {
    const { instance, delivered } = sequencer({ fail: "b" });
    await instance.submit({ seqno: 0n, message: "a" });
    const bad = instance.submit({ seqno: 1n, message: "b" });
    await expect(bad).rejects.toThrow("bad b");
    await instance.submit({ seqno: 2n, message: "c" });
    expect(delivered).toEqual(["a", "c"]);
  });

  it("starts the sequence at the first message's seqno when a client counts from 1", async () => {
    const { instance, delivered } = sequencer({ first: "run" });
    const later = instance.submit({ seqno: 2n, message: "kv" });
    await instance.submit({ seqno: 1n, message: "run" });
    await later;
    await instance.submit({ seqno: 0n, message: "stale" });
    expect(delivered).toEqual(["run", "kv"]);
  });
});
