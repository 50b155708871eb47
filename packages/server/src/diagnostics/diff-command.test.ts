import { describe, expect, it } from "vitest";
import { loadFixture } from "./__fixtures__/load-fixture.js";
import { runDiffCommand } from "./diff-command.js";

function harness(files: Record<string, unknown>) {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    out: { write: (text: string) => out.push(text) },
    err: { write: (text: string) => err.push(text) },
    readText: async (path: string) => {
      if (!(path in files)) throw new Error(`ENOENT: no such file ${path}`);
      const content = files[path];
      return typeof content === "string" ? content : JSON.stringify(content);
    },
  };
  return { io, out: () => out.join(""), err: () => err.join("") };
}

const call = (n: number) => loadFixture(`openai-responses-call-${n}`);
const requestLog = {
  requests: [1, 2, 3].map((n) => ({
    at: `2026-11-29T09:0${n}:00.000Z`,
    provider: "openai-responses",
    body: call(n),
    sharedPrefixItems: 0,
  })),
};

describe("cursor-gateway diff", () => {
  it("compares two bodies: shared prefix, first diverging path, diff and cause", async () => {
    const edited = call(3);
    const items = edited.input as { content: { text: string }[] }[];
    items[1]!.content[0]!.text = items[1]!.content[0]!.text.replace("10:01", "10:05");
    const { io, out } = harness({ "a.json": call(2), "b.json": edited });
    expect(await runDiffCommand({ argv: ["a.json", "b.json"], io })).toBe(0);
    const text = out();
    expect(text).toContain("A a.json: OpenAI Responses body, 6 prompt segments (4 history items)");
    expect(text).toContain("cache namespace: same");
    expect(text).toMatch(
      /shared prefix: 3 of 6 segments, 1 of 4 history items, [\d ]+ of [\d ]+ tokens \(\d+\.\d%; o200k\)/,
    );
    expect(text).toContain(
      "first divergence: input[1].content[0].text (value; segment 3: input item 1)",
    );
    expect(text).toContain("likely cause: an earlier message was edited");
    expect(text).toContain('"2026-11-29 10:01" → "2026-11-29 10:05"');
    expect(text).toContain("  -<current_time>Sunday, 2026-11-29 10:01 UTC+01:00</current_time>");
  });

  it("compares the last two entries of a provider-requests answer, or the one --index names", async () => {
    const { io, out } = harness({ "log.json": requestLog });
    expect(await runDiffCommand({ argv: ["log.json"], io })).toBe(0);
    expect(out()).toContain("A log.json#1:");
    expect(out()).toContain("B log.json#2:");
    expect(out()).toContain("first divergence: none");
    expect(out()).toContain("likely cause: the later body extends the earlier one");

    const second = harness({ "log.json": requestLog });
    expect(await runDiffCommand({ argv: ["log.json", "--index", "1"], io: second.io })).toBe(0);
    expect(second.out()).toContain("A log.json#0:");
  });

  it("takes an entry of a provider-requests answer against a plain body, and prints JSON", async () => {
    const { io, out } = harness({ "log.json": requestLog, "b.json": call(2) });
    expect(
      await runDiffCommand({ argv: ["log.json", "b.json", "--index", "0", "--json"], io }),
    ).toBe(0);
    const diff = JSON.parse(out()) as { cause: { kind: string }; format: string };
    expect(diff).toMatchObject({ format: "openai-responses", cause: { kind: "append-only" } });
  });

  it("reads Anthropic and Chat bodies", async () => {
    const { io, out } = harness({
      "a.json": loadFixture("anthropic-call-1"),
      "b.json": loadFixture("anthropic-call-2"),
    });
    expect(await runDiffCommand({ argv: ["a.json", "b.json"], io })).toBe(0);
    expect(out()).toContain("Anthropic Messages body");
  });

  it("answers usage errors with exit code 2", async () => {
    const none = harness({});
    expect(await runDiffCommand({ argv: [], io: none.io })).toBe(2);
    expect(none.err()).toContain("cursor-gateway diff A.json [B.json]");
    const broken = harness({ "a.json": "{not json" });
    expect(await runDiffCommand({ argv: ["a.json", "a.json"], io: broken.io })).toBe(2);
    expect(broken.err()).toContain("a.json:");
    const single = harness({ "a.json": call(1) });
    expect(await runDiffCommand({ argv: ["a.json"], io: single.io })).toBe(2);
    const notABody = harness({ "a.json": { hello: 1 }, "b.json": { hello: 2 } });
    expect(await runDiffCommand({ argv: ["a.json", "b.json"], io: notABody.io })).toBe(2);
    const mixed = harness({ "a.json": call(1), "b.json": loadFixture("anthropic-call-2") });
    expect(await runDiffCommand({ argv: ["a.json", "b.json"], io: mixed.io })).toBe(2);
    expect(mixed.err()).toContain("different providers share no cache");
    const missing = harness({});
    expect(await runDiffCommand({ argv: ["nope.json", "nope.json"], io: missing.io })).toBe(2);
    expect(await runDiffCommand({ argv: ["--bogus"], io: harness({}).io })).toBe(2);
  });
});
