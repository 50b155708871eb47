import { describe, expect, it } from "vitest";
import {
  assistantMessageId,
  backgroundCompletionEventId,
  injectionEventId,
  messageIdPrefixes,
  requestContextEventId,
  requestContextMessageId,
  runtimeMessageId,
  shortDigest,
  summaryMessageId,
  toolResultMessageId,
  toolRoundId,
  userMessageId,
  userTurnEventId,
} from "./message-ids.js";

const digest = "0123456789abcdef".repeat(4);

describe("id catalog", () => {
  it("builds every id exactly as documented", () => {
    const ctx = requestContextEventId({ clientMessageId: "m1", contextDigest: digest });
    const turn = userTurnEventId({ clientMessageId: "m1", contentDigest: digest });
    expect(ctx).toBe("ctx.m1.0123456789abcdef");
    expect(turn).toBe("turn.m1.0123456789abcdef");
    expect(requestContextMessageId(ctx)).toBe("request-context:ctx.m1.0123456789abcdef");
    expect(runtimeMessageId(turn)).toBe("runtime:turn.m1.0123456789abcdef");
    expect(backgroundCompletionEventId({ kind: "shell", taskId: "t1" })).toBe("bg.shell.t1.-");
    expect(backgroundCompletionEventId({ kind: "subagent", taskId: "t1", toolCallId: "c9" })).toBe(
      "bg.subagent.t1.c9",
    );
    expect(injectionEventId("i7")).toBe("inject.i7");
    expect(summaryMessageId(3)).toBe("summary:3");
    expect(assistantMessageId({ runId: "r-1", step: 2 })).toBe("assistant:r-1:2");
    expect(toolResultMessageId("call_1")).toBe("tool-result:call_1");
    expect(toolRoundId("assistant:r-1:2")).toBe("round:assistant:r-1:2");
    expect(userMessageId("m1")).toBe("user:m1");
  });

  it("keeps kinds apart by prefix, so ids never collide across kinds", () => {
    const prefixes = Object.values(messageIdPrefixes);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    for (const a of prefixes) {
      for (const b of prefixes) if (a !== b) expect(a.startsWith(b)).toBe(false);
    }
  });

  it("gives the same short digest for equal values whatever their key order", () => {
    expect(shortDigest({ a: 1, b: [1, 2] })).toBe(shortDigest({ b: [1, 2], a: 1 }));
    expect(shortDigest({ a: 1 })).not.toBe(shortDigest({ a: 2 }));
    expect(shortDigest("x")).toMatch(/^[0-9a-f]{16}$/);
  });
});
