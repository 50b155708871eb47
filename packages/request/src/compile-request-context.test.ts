import { createHash } from "node:crypto";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadAgentRunRequest } from "./__fixtures__/load-fixture.js";
import { compileRequestContext } from "./compile-request-context.js";
import { createCursorPromptSpec } from "./cursor-prompt-spec.js";
import { RequestValidationError } from "./errors.js";
import { parseAgentRunRequest } from "./parse-agent-run-request.js";
import { requestContextInputSchema } from "./request-context-schema.js";
import type { RequestContextInput } from "./request-context-schema.js";

function fixtureContext(): RequestContextInput {
  return loadAgentRunRequest().requestContext;
}

function compile(input: RequestContextInput) {
  const compiled = compileRequestContext(input);
  if (compiled === undefined) throw new Error("expected a compiled context");
  return compiled;
}

/** A small deterministic PRNG, so a fast-check seed drives every shuffle. */
function randomFrom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/** The same object with its keys in another order, at every depth (arrays keep their order). */
function shuffleKeys<T>(value: T, random: () => number): T {
  if (Array.isArray(value)) return value.map((item) => shuffleKeys(item, random)) as T;
  if (value === null || typeof value !== "object") return value;
  const entries = shuffle(Object.entries(value), random);
  return Object.fromEntries(entries.map(([key, item]) => [key, shuffleKeys(item, random)])) as T;
}

/** Reorders every list of the context (and every object's keys) the way a client might. */
function reorder(context: RequestContextInput, seed: number): RequestContextInput {
  const random = randomFrom(seed);
  const reordered: RequestContextInput = {
    ...context,
    ...(context.rules && { rules: shuffle(context.rules, random) }),
    ...(context.skills && { skills: shuffle(context.skills, random) }),
    ...(context.subagents && { subagents: shuffle(context.subagents, random) }),
    ...(context.git && { git: shuffle(context.git, random) }),
    ...(context.env && {
      env: {
        ...context.env,
        ...(context.env.workspacePaths && {
          workspacePaths: shuffle(context.env.workspacePaths, random),
        }),
      },
    }),
    ...(context.mcp && {
      mcp: {
        servers: shuffle(context.mcp.servers, random).map((server) => ({
          ...server,
          ...(server.tools && { tools: shuffle(server.tools, random) }),
        })),
      },
    }),
  };
  return shuffleKeys(reordered, random);
}

afterEach(() => {
  vi.useRealTimers();
});

describe("compileRequestContext", () => {
  it("renders the full fixture (golden)", async () => {
    const compiled = compile(fixtureContext());
    await expect(compiled.text).toMatchFileSnapshot("./__fixtures__/request-context.golden.txt");
    expect(compiled.digest).toBe(createHash("sha256").update(compiled.text).digest("hex"));
    expect(compiled.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("is undefined when there is nothing to say", () => {
    expect(compileRequestContext(undefined)).toBeUndefined();
    expect(compileRequestContext({})).toBeUndefined();
    expect(
      compileRequestContext({
        rules: [
          { name: "blank", path: "a.mdc", content: " \n\t\n" },
          { name: "skill", path: "skills/x/SKILL.md", content: "Use x." },
        ],
        skills: [],
        subagents: [],
        env: { workspacePaths: [] },
        git: [],
        mcp: { servers: [] },
      }),
    ).toBeUndefined();
  });

  it("leaves out empty sections entirely", () => {
    expect(compile({ env: { timeZone: "UTC" }, rules: [] }).text).toBe(
      [
        "<request_context>",
        "This describes the project and the environment of this conversation. It replaces any earlier request context.",
        "<environment>",
        "Time zone: UTC",
        "</environment>",
        "</request_context>",
      ].join("\n"),
    );
  });

  it("skips empty rules and rules that repeat a skill", () => {
    const text = compile({
      rules: [
        { name: "kept", path: "rules/kept.mdc", content: "\n\nKeep me.  \n" },
        { name: "blank", path: "rules/blank.mdc", content: "   " },
        { name: "skill file", path: "tools\\pdf\\skill.md", content: "Use pdf-lib." },
        { name: "skill path", path: "skills/release.md", content: "Releases." },
        { name: "skill text", content: "Cut a release with changesets.\n" },
      ],
      skills: [
        {
          name: "release",
          path: "skills/release.md",
          description: "Cut a release with changesets.",
        },
      ],
    }).text;
    expect(text).toContain('<rule name="kept" path="rules/kept.mdc">\nKeep me.\n</rule>');
    expect(text.match(/<rule /g)).toHaveLength(1);
    expect(text).not.toContain("Use pdf-lib.");
    expect(text).not.toContain("Releases.");
    expect(text.match(/Cut a release with changesets\./g)).toHaveLength(1);
  });

  it("shows a rule's globs (as a set) and description, and lists a described rule without content", () => {
    const text = compile({
      rules: [
        {
          name: "ts",
          path: ".cursor/rules/ts.mdc",
          content: "Use strict types.",
          globs: ["src/**/*.tsx", "src/**/*.ts", "src/**/*.tsx"],
        },
        {
          name: "db",
          path: ".cursor/rules/db.mdc",
          content: "",
          description: "Read before changing migrations.",
        },
        { name: "empty", path: ".cursor/rules/empty.mdc", content: " ", description: " " },
      ],
    }).text;
    expect(text).toContain(
      '<rule name="db" path=".cursor/rules/db.mdc" description="Read before changing migrations."/>\n' +
        '<rule name="ts" path=".cursor/rules/ts.mdc" globs="src/**/*.ts, src/**/*.tsx">\nUse strict types.\n</rule>',
    );
    expect(text).not.toContain("empty.mdc");
    const reordered = compile({
      rules: [
        {
          name: "db",
          path: ".cursor/rules/db.mdc",
          content: "",
          description: "Read before changing migrations.",
        },
        {
          name: "ts",
          path: ".cursor/rules/ts.mdc",
          content: "Use strict types.",
          globs: ["src/**/*.ts", "src/**/*.tsx"],
        },
      ],
    }).text;
    expect(reordered).toBe(text);
  });

  it("escapes attributes the same way everywhere", () => {
    const text = compile({
      rules: [{ name: 'say "hi" & <bye>', path: "a b.mdc", content: "x" }],
      git: [{ path: '/repo "main"', branch: "feat/<x>&y" }],
      mcp: { servers: [{ name: 'q"&', tools: [{ name: "t<1>", inputSchema: {} }] }] },
    }).text;
    expect(text).toContain('<rule name="say &quot;hi&quot; &amp; &lt;bye&gt;" path="a b.mdc">');
    expect(text).toContain(
      '<repository path="/repo &quot;main&quot;" branch="feat/&lt;x&gt;&amp;y"/>',
    );
    expect(text).toContain('<mcp_server name="q&quot;&amp;">');
    expect(text).toMatch(/<tool name="mcp__q____t_1__[0-9a-f]{8}" mcp_name="t&lt;1&gt;">/);
  });

  it("writes MCP input schemas in canonical key order, filling in an object type", () => {
    const text = compile({
      mcp: {
        servers: [
          {
            name: "s",
            tools: [
              { name: "b", inputSchema: { required: ["z", "a"], properties: { z: {}, a: {} } } },
              { name: "a", inputSchema: {} },
            ],
          },
        ],
      },
    }).text;
    expect(text).toContain(
      [
        '<tool name="mcp__s__a" mcp_name="a">',
        '<input_schema>{"properties":{},"type":"object"}</input_schema>',
        "</tool>",
        '<tool name="mcp__s__b" mcp_name="b">',
        '<input_schema>{"properties":{"a":{},"z":{}},"required":["z","a"],"type":"object"}</input_schema>',
        "</tool>",
      ].join("\n"),
    );
  });

  it("names MCP tools exactly as the prompt spec exposes them", () => {
    const context = fixtureContext();
    const text = compile(context).text;
    const spec = createCursorPromptSpec({ mcpServers: context.mcp?.servers });
    const mcpNames = spec.tools.map((tool) => tool.name).filter((name) => name.startsWith("mcp__"));
    expect(mcpNames).toHaveLength(3);
    const named = [...text.matchAll(/<tool name="([^"]+)"/g)].map((match) => match[1]);
    expect(named).toEqual(mcpNames);
  });

  it("collapses exact duplicates and orders rules without a path first", () => {
    const text = compile({
      rules: [
        { name: "b", path: "b.mdc", content: "B" },
        { name: "user", content: "U" },
        { name: "b", path: "b.mdc", content: "B" },
      ],
    }).text;
    expect(text).toContain(
      '<rule name="user">\nU\n</rule>\n<rule name="b" path="b.mdc">\nB\n</rule>\n</rules>',
    );
    expect(text.match(/<rule /g)).toHaveLength(2);
  });

  it("holds nothing volatile: the clock does not change it", () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date("2020-01-01T00:00:00Z"));
    const first = compile(fixtureContext());
    vi.setSystemTime(new Date("2031-06-15T12:34:56Z"));
    const second = compile(fixtureContext());
    expect(second).toEqual(first);
    expect(first.text).not.toMatch(/20\d\d-\d\d-\d\d|\d\d:\d\d/);
  });

  it("keeps the digest when any list (or key order) is reordered", () => {
    const context = fixtureContext();
    const digest = compile(context).digest;
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        expect(compile(reorder(context, seed)).digest).toBe(digest);
      }),
      { numRuns: 100 },
    );
  });

  it("keeps the digest of generated contexts under permutation", () => {
    const name = fc.constantFrom("a", "b", "c", "d");
    const text = fc.constantFrom("", "x", "y", "x\n", "Use tabs.");
    const context = fc.record({
      rules: fc.array(
        fc.record({ name, path: fc.option(name, { nil: undefined }), content: text }),
        { maxLength: 6 },
      ),
      skills: fc.array(
        fc.record({ name, path: name.map((n) => `${n}/SKILL.md`), description: text }),
        { maxLength: 4 },
      ),
      subagents: fc.array(fc.record({ name, description: text }), { maxLength: 4 }),
      git: fc.array(
        fc.record({ path: name, branch: fc.option(name, { nil: undefined }), status: text }),
        { maxLength: 4 },
      ),
      env: fc.record({ workspacePaths: fc.array(name, { maxLength: 4 }) }),
      mcp: fc.record({
        servers: fc.uniqueArray(
          fc.record({
            name,
            tools: fc.uniqueArray(fc.record({ name, inputSchema: fc.constant({}) }), {
              selector: (tool) => tool.name,
              maxLength: 3,
            }),
          }),
          { selector: (server) => server.name, maxLength: 3 },
        ),
      }),
    });
    fc.assert(
      fc.property(context, fc.integer(), (input, seed) => {
        const compiled = compileRequestContext(input);
        expect(compileRequestContext(reorder(input, seed))).toEqual(compiled);
      }),
      { numRuns: 100 },
    );
  });

  it("changes the digest when any content changes", () => {
    type Edit = (context: RequestContextInput, suffix: string) => void;
    const edits: Edit[] = [
      (c, s) => void (c.rules![0]!.content += s),
      (c, s) => void (c.rules![1]!.name += s),
      (c, s) => void (c.rules![1]!.path += s),
      (c, s) => void (c.rules![5]!.content += s),
      (c, s) => void (c.skills![0]!.name += s),
      (c, s) => void (c.skills![1]!.path += s),
      (c, s) => void (c.skills![1]!.description += s),
      (c, s) => void (c.subagents![0]!.name += s),
      (c, s) => void (c.subagents![1]!.description += s),
      (c, s) => void (c.env!.os += s),
      (c, s) => void (c.env!.shell += s),
      (c, s) => void (c.env!.workspacePaths![1] += s),
      (c) => void (c.env!.timeZone = "America/New_York"),
      (c, s) => void (c.git![0]!.branch += s),
      (c, s) => void (c.git![1]!.status += s),
      (c, s) => void (c.git![1]!.path += s),
      (c, s) => void (c.mcp!.servers[0]!.name += s),
      (c, s) => void (c.mcp!.servers[0]!.instructions += s),
      (c, s) => void (c.mcp!.servers[0]!.tools![1]!.name += s),
      (c, s) => void (c.mcp!.servers[1]!.tools![0]!.description += s),
      (c, s) => {
        c.mcp!.servers[0]!.tools![0]!.inputSchema = {
          ...c.mcp!.servers[0]!.tools![0]!.inputSchema,
          description: s,
        };
      },
      (c, s) => void c.subagents!.push({ name: `new${s}`, description: "" }),
      (c) => void c.git!.pop(),
    ];
    const digest = compile(fixtureContext()).digest;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: edits.length - 1 }),
        fc.stringMatching(/^[A-Za-z0-9]{1,8}$/),
        (index, suffix) => {
          const context = fixtureContext();
          edits[index]!(context, suffix);
          expect(compile(context).digest).not.toBe(digest);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("rejects invalid input with every offending path", () => {
    const invalid = { rules: [{ name: "", content: "x" }], env: { timeZone: "Nowhere/Else" } };
    expect(() => compileRequestContext(invalid as RequestContextInput)).toThrow(
      RequestValidationError,
    );
    try {
      compileRequestContext(invalid as RequestContextInput);
    } catch (error) {
      expect(RequestValidationError.isInstance(error) && error.issues).toEqual([
        { path: "rules[0].name", message: "must not be empty" },
        { path: "env.timeZone", message: "must be a time zone this runtime knows" },
      ]);
    }
  });
});

describe("compileRequestContext of a parsed request's context", () => {
  it("compiles the context parseAgentRunRequest produced without parsing it again, to the same result", () => {
    const body = loadAgentRunRequest();
    const parsed = parseAgentRunRequest(body);
    if (!parsed.success) throw new Error("the fixture is valid");
    const context = parsed.data.requestContext!;
    // Frozen, so it cannot differ from what the schema produced.
    expect(Object.isFrozen(context)).toBe(true);
    expect(Object.isFrozen(context.rules?.[0])).toBe(true);
    const parse = vi.spyOn(requestContextInputSchema, "safeParse");
    try {
      const compiled = compile(context);
      expect(parse).not.toHaveBeenCalled();
      // A plain copy of the same context is parsed, and compiles the same.
      expect(compile(structuredClone(body.requestContext))).toEqual(compiled);
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });
});

describe("compileRequestContext of a context sent again", () => {
  function parsedContext(body: ReturnType<typeof loadAgentRunRequest>): RequestContextInput {
    const parsed = parseAgentRunRequest(body);
    if (!parsed.success) throw new Error("the fixture is valid");
    return parsed.data.requestContext!;
  }

  it("returns the earlier result for an equal parsed context, and compiles a changed one", () => {
    const body = loadAgentRunRequest();
    const first = compileRequestContext(parsedContext(body));
    // The next turn's request: a new parse of the same context.
    expect(compileRequestContext(parsedContext(loadAgentRunRequest()))).toBe(first);
    const changed = loadAgentRunRequest();
    changed.requestContext.env = { ...changed.requestContext.env, os: "linux 6.18" };
    const other = compileRequestContext(parsedContext(changed));
    expect(other).not.toBe(first);
    expect(other?.text).toContain("Operating system: linux 6.18");
    expect(other).toEqual(compile(structuredClone(changed.requestContext)));
  });

  it("compiles a context that was not parsed by the request schema every time", () => {
    const context = structuredClone(loadAgentRunRequest().requestContext);
    const first = compileRequestContext(context);
    const second = compileRequestContext(context);
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
  });

  it("forgets the least recently used of more contexts than it keeps, and compiles it again alike", () => {
    const variant = (os: string) => {
      const body = loadAgentRunRequest();
      body.requestContext.env = { ...body.requestContext.env, os };
      return body;
    };
    const first = compileRequestContext(parsedContext(variant("os 0")));
    for (let index = 1; index <= 4; index += 1)
      compileRequestContext(parsedContext(variant(`os ${index}`)));
    const again = compileRequestContext(parsedContext(variant("os 0")));
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
