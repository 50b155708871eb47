import { createCursorPromptSpec } from "@cursor/request";
import { describe, expect, it } from "vitest";
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
    const cache = new PromptSpecCache();
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

  it("keeps at most maxEntries specs, least recently used out first", () => {
    const cache = new PromptSpecCache({ maxEntries: 2 });
    const a = cache.specFor(servers("a"));
    cache.specFor(servers("b"));
    expect(cache.specFor(servers("a"))).toBe(a);
    cache.specFor(servers("c"));
    expect(cache.size).toBe(2);
    expect(cache.specFor(servers("a"))).toBe(a);
    // "b" was the least recently used: built again, an equal spec.
    expect(cache.specFor(servers("b")).digest).toBe(
      createCursorPromptSpec({ mcpServers: servers("b") }).digest,
    );
  });
});
