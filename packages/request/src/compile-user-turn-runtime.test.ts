import { describe, expect, it, vi } from "vitest";
import { loadAgentRunRequest } from "./__fixtures__/load-fixture.js";
import { agentModes } from "./agent-run-request-schema.js";
import { compileUserTurnRuntime } from "./compile-user-turn-runtime.js";
import { RequestValidationError } from "./errors.js";
import { parseAgentRunRequest } from "./parse-agent-run-request.js";
import type { UserMessageInput } from "./user-message-schema.js";
import { userMessageInputSchema } from "./user-message-schema.js";
import { timeZoneSchema } from "./request-context-schema.js";

const timestamp = "2026-11-29T10:00:00+01:00";

function fixtureMessage(): UserMessageInput {
  return loadAgentRunRequest().action.message;
}

/** The fixture's user message as `parseAgentRunRequest` produced it (frozen, known valid). */
function parsedMessage(): UserMessageInput {
  const parsed = parseAgentRunRequest(loadAgentRunRequest());
  if (!parsed.success || parsed.data.action.type !== "user-message") {
    throw new Error("the fixture is a valid user turn");
  }
  return parsed.data.action.message;
}

/** The paths a refused input's error names (none when it compiles). */
function issues(input: Parameters<typeof compileUserTurnRuntime>[0]): string[] {
  try {
    compileUserTurnRuntime(input);
  } catch (error) {
    if (RequestValidationError.isInstance(error)) return error.issues.map((issue) => issue.path);
    throw error;
  }
  return [];
}

function runtimeText(input: Parameters<typeof compileUserTurnRuntime>[0]): string {
  const [first] = compileUserTurnRuntime(input).content;
  if (first?.type !== "text") throw new Error("the runtime message starts with its text");
  return first.text;
}

/** Every distinctive value of the fixture's request context: none may leak into a runtime. */
function requestContextValues(): string[] {
  const context = loadAgentRunRequest().requestContext;
  return [
    ...(context.rules ?? []).flatMap((rule) => [rule.name, rule.content.trim()]),
    ...(context.skills ?? []).flatMap((skill) => [skill.name, skill.path, skill.description]),
    ...(context.subagents ?? []).flatMap((subagent) => [subagent.description]),
    context.env?.os ?? "",
    "Europe/Berlin",
    ...(context.env?.workspacePaths ?? []),
    ...(context.git ?? []).flatMap((repository) => [repository.branch ?? "", repository.path]),
    ...(context.mcp?.servers ?? []).flatMap((server) => [
      server.name,
      server.instructions ?? "",
      ...(server.tools ?? []).flatMap((tool) => [tool.name, tool.description ?? ""]),
    ]),
    "mcp__",
    "<request_context>",
    "<rules>",
    "<environment>",
    "<mcp_servers>",
  ].filter((value) => value.length >= 8); // shorter words ("query", "main") are ordinary prose
}

describe("compileUserTurnRuntime", () => {
  it.each(agentModes)("renders the %s runtime of the fixture (golden)", async (mode) => {
    const text = runtimeText({
      mode,
      message: fixtureMessage(),
      timestamp,
      timeZone: "Europe/Berlin",
    });
    await expect(text).toMatchFileSnapshot(`./__fixtures__/runtime-${mode}.golden.txt`);
  });

  it.each(agentModes)("renders exactly one user query in %s mode", (mode) => {
    const message = { ...fixtureMessage(), text: "Rename Foo to Bar everywhere." };
    const text = runtimeText({ mode, message, timestamp });
    expect(text.match(/<user_query>/g)).toHaveLength(1);
    expect(text.match(/<\/user_query>/g)).toHaveLength(1);
    expect(text.split("Rename Foo to Bar everywhere.")).toHaveLength(2);
    expect(text.endsWith("<user_query>\nRename Foo to Bar everywhere.\n</user_query>")).toBe(true);
    expect(text).toContain(`<mode name="${mode}">`);
  });

  it.each(agentModes)("never carries rules, environment, skills or MCP data in %s mode", (mode) => {
    const text = runtimeText({
      mode,
      message: fixtureMessage(),
      timestamp,
      timeZone: "Europe/Berlin",
    });
    const values = requestContextValues();
    expect(values.length).toBeGreaterThan(25);
    for (const value of values) expect(text).not.toContain(value);
  });

  it("puts the text first and the user's images after it, in order", () => {
    const message: UserMessageInput = {
      id: "m-2",
      text: "What is in these?",
      images: [
        { mimeType: "image/png", data: "AAAA" },
        { mimeType: "image/webp", data: "BBBB" },
      ],
    };
    const { content } = compileUserTurnRuntime({ mode: "ask", message, timestamp });
    expect(content.map((part) => part.type)).toEqual(["text", "image", "image"]);
    expect(content.slice(1)).toEqual([
      { type: "image", mimeType: "image/png", data: "AAAA" },
      { type: "image", mimeType: "image/webp", data: "BBBB" },
    ]);
    expect(content[0]).toMatchObject({ type: "text" });
    const text = (content[0] as { text: string }).text;
    expect(text).toContain(
      '<image number="1" mime_type="image/png"/>\n<image number="2" mime_type="image/webp"/>',
    );
  });

  it("leaves no blank line behind for absent sections", () => {
    const text = runtimeText({ mode: "agent", message: { id: "m", text: "hi" }, timestamp });
    expect(text).not.toContain("\n\n");
    expect(text).toContain(
      "<current_time>Sunday, 2026-11-29 09:00 UTC+00:00</current_time>\n</runtime_context>\n<user_query>\nhi\n</user_query>",
    );
  });

  it("renders the timestamp in the request's time zone (UTC by default)", () => {
    const render = (timeZone: string | undefined, at = timestamp) =>
      /<current_time>(.*)<\/current_time>/.exec(
        runtimeText({ mode: "agent", message: { id: "m", text: "hi" }, timestamp: at, timeZone }),
      )?.[1];
    expect(render(undefined)).toBe("Sunday, 2026-11-29 09:00 UTC+00:00");
    expect(render("Europe/Berlin")).toBe("Sunday, 2026-11-29 10:00 UTC+01:00");
    expect(render("Europe/Berlin", "2026-07-01T08:30:00Z")).toBe(
      "Wednesday, 2026-07-01 10:30 UTC+02:00",
    );
    expect(render("America/Los_Angeles")).toBe("Sunday, 2026-11-29 01:00 UTC-08:00");
    expect(render("Asia/Kolkata")).toBe("Sunday, 2026-11-29 14:30 UTC+05:30");
    expect(render("Pacific/Auckland", "2026-11-29T11:30:00Z")).toBe(
      "Monday, 2026-11-30 00:30 UTC+13:00",
    );
  });

  it("accepts a Date as the timestamp", () => {
    const fromString = compileUserTurnRuntime({
      mode: "plan",
      message: { id: "m", text: "hi" },
      timestamp,
    });
    const fromDate = compileUserTurnRuntime({
      mode: "plan",
      message: { id: "m", text: "hi" },
      timestamp: new Date(timestamp),
    });
    expect(fromDate).toEqual(fromString);
  });

  it("digests the content without the timestamp: a retry later has the same digest", () => {
    const message = fixtureMessage();
    const first = compileUserTurnRuntime({ mode: "agent", message, timestamp });
    const later = compileUserTurnRuntime({
      mode: "agent",
      message,
      timestamp: "2026-11-30T18:00:00Z",
    });
    expect(later.content).not.toEqual(first.content);
    expect(later.contentDigest).toBe(first.contentDigest);
    expect(first.contentDigest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("changes the digest with the mode, the text, the context or the images", () => {
    const message = fixtureMessage();
    const digest = (mode: "agent" | "ask", input: UserMessageInput) =>
      compileUserTurnRuntime({ mode, message: input, timestamp }).contentDigest;
    const base = digest("agent", message);
    const variants = [
      digest("ask", message),
      digest("agent", { ...message, text: `${message.text}!` }),
      digest("agent", { ...message, selectedContext: message.selectedContext?.slice(1) }),
      digest("agent", { ...message, openFiles: [] }),
      digest("agent", { ...message, recentFiles: undefined }),
      digest("agent", { ...message, images: [{ mimeType: "image/png", data: "AAAA" }] }),
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
  });

  it("keeps selected file contents verbatim and escapes their attributes", () => {
    const text = runtimeText({
      mode: "agent",
      message: {
        id: "m",
        text: "look",
        selectedContext: [
          { kind: "file", path: 'a "b".ts', content: "  indented\n\n\ttab\n" },
          { kind: "terminal", title: "zsh <1>", content: "" },
        ],
      },
      timestamp,
    });
    expect(text).toContain(
      '<selected_context>\n<file path="a &quot;b&quot;.ts">\n  indented\n\n\ttab\n</file>\n<terminal title="zsh &lt;1&gt;"/>\n</selected_context>',
    );
  });

  it("rejects invalid input with every offending path", () => {
    expect(
      issues({
        mode: "chat" as "agent",
        message: { id: "", text: "hi" },
        timestamp: "yesterday",
        timeZone: "Moon/Base",
      }),
    ).toEqual(["mode", "message.id", "timestamp", "timeZone"]);
  });
});

describe("compileUserTurnRuntime of a parsed request's user message", () => {
  it("renders the message parseAgentRunRequest produced without parsing it again, to the same result", () => {
    const message = parsedMessage();
    // Frozen, so it cannot differ from what the schema produced.
    expect(Object.isFrozen(message)).toBe(true);
    expect(Object.isFrozen(message.selectedContext?.[0])).toBe(true);
    // Inside the input's schema, the message schema runs as a part: its `run` is what a parse calls.
    const parse = vi.spyOn(userMessageInputSchema._zod, "run");
    try {
      const input = { mode: "agent" as const, message, timestamp, timeZone: "Europe/Berlin" };
      const compiled = compileUserTurnRuntime(input);
      expect(parse).not.toHaveBeenCalled();
      // A plain copy of the same message is parsed (inside the input's schema), and renders the same.
      expect(
        compileUserTurnRuntime({ ...input, message: structuredClone(fixtureMessage()) }),
      ).toEqual(compiled);
    } finally {
      parse.mockRestore();
    }
  });

  it("still checks the rest of the input when the message is known valid", () => {
    const message = parsedMessage();
    expect(
      issues({
        mode: "chat" as "agent",
        message,
        timestamp: "yesterday",
        timeZone: "Moon/Base",
      }),
    ).toEqual(["mode", "timestamp", "timeZone"]);
    const extra = { mode: "agent", message, timestamp, surprise: 1 } as Parameters<
      typeof compileUserTurnRuntime
    >[0];
    expect(() => compileUserTurnRuntime(extra)).toThrow(RequestValidationError);
  });
});

describe("compileUserTurnRuntime of a parsed request's clock", () => {
  it("checks a Date and a zone the schema accepted before without the schema, to the same text", () => {
    const message = parsedMessage();
    const instant = new Date(timestamp);
    // The zone schema has accepted Europe/Berlin once (the fixture's request context).
    const first = compileUserTurnRuntime({
      mode: "agent",
      message,
      timestamp,
      timeZone: "Europe/Berlin",
    });
    const zone = vi.spyOn(timeZoneSchema._zod, "run");
    try {
      const again = compileUserTurnRuntime({
        mode: "agent",
        message,
        timestamp: instant,
        timeZone: "Europe/Berlin",
      });
      expect(zone).not.toHaveBeenCalled();
      expect(again).toEqual(first);
    } finally {
      zone.mockRestore();
    }
  });

  it("sends anything else through the schema, which names what is wrong", () => {
    const message = parsedMessage();
    const date = new Date(timestamp);
    expect(issues({ mode: "agent", message, timestamp: date, timeZone: "Moon/Base" })).toEqual([
      "timeZone",
    ]);
    expect(issues({ mode: "chat" as "agent", message, timestamp: date })).toEqual(["mode"]);
    expect(issues({ mode: "agent", message, timestamp: new Date(Number.NaN) })).toEqual([
      "timestamp",
    ]);
    const extra = { mode: "agent", message, timestamp: date, surprise: 1 } as Parameters<
      typeof compileUserTurnRuntime
    >[0];
    expect(issues(extra)).toEqual(["surprise"]);
  });
});
