import { createCursorPromptSpec } from "@cursor/request";
import { describe, expect, it } from "vitest";
import { CacheLedger } from "./cache/cache-ledger.js";
import { PromptSpecCache } from "./prompt-spec-cache.js";

const servers = (name: string) => [
  {
    name,
    instructions: "query the database",
    tools: [
      {
        name: "query",
        description: "runs SQL",
        inputSchema: { type: "object", properties: { sql: { type: "string" } } },
      },
    ],
  },
];

describe("PromptSpecCache", () => {
  it("builds the spec a fresh createCursorPromptSpec builds, once per distinct set of servers", () => {
    const cache = new PromptSpecCache({ ledger: new CacheLedger({ maxBytes: 64 * 1024 * 1024 }) });
    const first = cache.specFor(servers("db"));
    expect(first.digest).toBe(createCursorPromptSpec({ mcpServers: servers("db") }).digest);
    // Equal copies (a new request's parse) and the same array (a continuation) hit.
    expect(cache.specFor(servers("db"))).toBe(first);
    const same = servers("db");
    expect(cache.specFor(same)).toBe(first);
    expect(cache.specFor(same)).toBe(first);
    const other = cache.specFor(servers("other"));
    expect(other).not.toBe(first);
    expect(other.digest).toBe(createCursorPromptSpec({ mcpServers: servers("other") }).digest);
    expect(cache.specFor(undefined).digest).toBe(createCursorPromptSpec({}).digest);
    expect(cache.specFor(undefined)).toBe(cache.specFor(undefined));
  });

  it("holds its specs in the cache budget, least recently used out first", () => {
    const probe = new CacheLedger({ maxBytes: 64 * 1024 * 1024 });
    new PromptSpecCache({ ledger: probe }).specFor(servers("a"));
    const one = probe.heldBytes;
    expect(one).toBeGreaterThan(1_000);
    // Room for two specs (their sizes differ by a character of the server name at most).
    const ledger = new CacheLedger({ maxBytes: 2 * one + 10 });
    const cache = new PromptSpecCache({ ledger });
    const a = cache.specFor(servers("a"));
    const b = cache.specFor(servers("b"));
    expect(cache.specFor(servers("a"))).toBe(a);
    cache.specFor(servers("c"));
    expect(ledger.stats().kinds["prompt-spec"]).toMatchObject({ entries: 2, evictions: 1 });
    expect(cache.size).toBe(2);
    expect(cache.specFor(servers("a"))).toBe(a);
    // "b" was the least recently used: built again, an equal spec.
    const again = cache.specFor(servers("b"));
    expect(again).not.toBe(b);
    expect(again.digest).toBe(createCursorPromptSpec({ mcpServers: servers("b") }).digest);
  });

  it("with a budget of 0 builds every spec again, each equal", () => {
    const ledger = new CacheLedger({ maxBytes: 0 });
    const cache = new PromptSpecCache({ ledger });
    const same = servers("db");
    const first = cache.specFor(same);
    const second = cache.specFor(same);
    expect(second).not.toBe(first);
    expect(second.digest).toBe(first.digest);
    expect(ledger.heldBytes).toBe(0);
  });
});
