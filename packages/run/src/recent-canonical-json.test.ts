import { describe, expect, it, vi } from "vitest";
import { canonicalJson } from "./canonical-json.js";
import { HistoryLog } from "./history-log.js";
import { createUserMessage } from "./message-builders.js";
import { recentCanonicalJson, rememberCanonicalJson } from "./recent-canonical-json.js";

// Counts the stable stringifies (the cost the memo saves).
const stringifies = vi.hoisted(() => ({ count: 0 }));
vi.mock("fast-json-stable-stringify", async (importOriginal) => {
  const original = (await importOriginal<{ default: (value: unknown) => string }>()).default;
  return {
    default: (value: unknown) => {
      stringifies.count += 1;
      return original(value);
    },
  };
});

describe("recentCanonicalJson", () => {
  it("gives a message validated a moment ago its canonical JSON without computing it again", () => {
    const log = new HistoryLog();
    const checked = log.check([
      createUserMessage({ id: "u1", content: [{ type: "text", text: "héllo ✓" }] }),
    ]);
    const [message] = checked.appended;
    const before = stringifies.count;
    const json = recentCanonicalJson(message);
    // The store and the checkpoint read it again: no stable stringify.
    expect(recentCanonicalJson(message)).toBe(json);
    expect(stringifies.count).toBe(before);
    expect(json).toBe(canonicalJson(message));
  });

  it("computes what it does not hold, and forgets the oldest beyond its bound", () => {
    const value = { b: 1, a: [{ d: 2, c: 3 }] };
    expect(recentCanonicalJson(value)).toBe('{"a":[{"c":3,"d":2}],"b":1}');
    const first = Object.freeze({ id: "first" });
    rememberCanonicalJson(first, "remembered");
    expect(recentCanonicalJson(first)).toBe("remembered");
    for (let index = 0; index < 300; index += 1) {
      rememberCanonicalJson(Object.freeze({ id: index }), `{"id":${index}}`);
    }
    // Pushed out: computed from the value again.
    expect(recentCanonicalJson(first)).toBe('{"id":"first"}');
  });
});
