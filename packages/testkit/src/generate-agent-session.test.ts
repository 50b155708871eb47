import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { SessionEvent } from "./agent-session-events.js";
import { fakeReplySchema } from "@cursor/fake-provider";
import type { FakeReply } from "@cursor/fake-provider";
import { agentSessionArbitrary, generateAgentSession } from "./generate-agent-session.js";

// The gateway contract (docs/http-contract.md), strict, to prove generated bodies are valid requests.
const clientId = z.string().regex(/^[\x21-\x7e]{1,128}$/);
const fileRef = z.strictObject({
  path: z.string().min(1),
  totalLines: z.number().int().min(0),
  focused: z.boolean().optional(),
  cursorLine: z.number().int().min(1).optional(),
});
const runBodySchema = z.strictObject({
  conversationId: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/),
  runId: clientId,
  mode: z.enum(["agent", "ask", "plan", "debug"]),
  model: z.string().optional(),
  timestamp: z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/),
  action: z.discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("user-message"),
      message: z.strictObject({
        id: clientId,
        text: z.string().min(1),
        selectedContext: z
          .array(z.looseObject({ kind: z.enum(["file", "code", "terminal", "text"]) }))
          .optional(),
        openFiles: z.array(fileRef).optional(),
        recentFiles: z.array(fileRef).optional(),
        images: z.array(z.strictObject({ mimeType: z.string(), data: z.string() })).optional(),
      }),
    }),
    z.strictObject({
      type: z.literal("tool-results"),
      results: z
        .array(
          z.strictObject({ callId: clientId, output: z.string(), isError: z.boolean().optional() }),
        )
        .min(1),
    }),
    z.strictObject({
      type: z.literal("inject-context"),
      injectionId: clientId,
      expectedRunId: clientId.optional(),
      text: z.string().min(1),
    }),
    z.strictObject({
      type: z.literal("background-completion"),
      completions: z
        .array(
          z.strictObject({
            taskId: z.string().min(1).max(100),
            kind: z.enum(["shell", "subagent"]),
            status: z.enum(["success", "error", "aborted"]),
            title: z.string().min(1),
            detail: z.string().optional(),
            toolCallId: clientId.optional(),
          }),
        )
        .min(1),
    }),
    z.strictObject({ type: z.literal("summarize") }),
  ]),
  requestContext: z
    .strictObject({
      rules: z.array(z.strictObject({ name: z.string(), path: z.string(), content: z.string() })),
      skills: z.array(
        z.strictObject({ name: z.string(), path: z.string(), description: z.string() }),
      ),
      subagents: z.array(z.strictObject({ name: z.string(), description: z.string() })),
      env: z.strictObject({
        os: z.string(),
        shell: z.string(),
        workspacePaths: z.array(z.string()),
        timeZone: z.string(),
      }),
      git: z.array(z.strictObject({ path: z.string(), branch: z.string(), status: z.string() })),
      mcp: z.strictObject({
        servers: z.array(z.looseObject({ name: z.string(), tools: z.array(z.looseObject({})) })),
      }),
    })
    .optional(),
});

/** The answer after any reasoning wrappers. */
function finalOf(reply: FakeReply): FakeReply {
  return reply.type === "reasoning" ? finalOf(reply.then) : reply;
}

const runEvents = (events: readonly SessionEvent[]) =>
  events.filter((e): e is Exclude<SessionEvent, { type: "restart" }> => e.type !== "restart");

describe("generateAgentSession", () => {
  it("is deterministic for a seed and differs across seeds", () => {
    const a = generateAgentSession({ seed: 42, turns: 12 });
    const b = generateAgentSession({ seed: 42, turns: 12 });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const c = generateAgentSession({ seed: 43, turns: 12 });
    expect(JSON.stringify(c.events)).not.toBe(JSON.stringify(a.events));
  });

  it("includes every behaviour at least once from 8 turns on", () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const { stats } = generateAgentSession({ seed, turns: 8 });
      expect(stats.userTurns).toBe(8);
      for (const key of [
        "toolRounds",
        "contextChanges",
        "contextReverts",
        "modeSwitches",
        "backgroundCompletions",
        "duplicateDeliveries",
        "injections",
        "retries",
        "restarts",
        "compactions",
      ] as const) {
        expect(stats[key], `seed ${seed}: ${key}`).toBeGreaterThan(0);
      }
      expect(stats.providerCalls).toBe(
        stats.userTurns +
          stats.toolRounds +
          stats.backgroundCompletions +
          stats.injections +
          stats.compactions,
      );
    }
  });

  it("produces valid gateway bodies and fake replies", () => {
    const session = generateAgentSession({ seed: 9, turns: 20, model: "gpt-5" });
    for (const event of runEvents(session.events)) {
      const parsed = runBodySchema.safeParse(event.body);
      expect(parsed.success, `${event.type} #${event.index}: ${parsed.error?.message}`).toBe(true);
      expect(event.body.conversationId).toBe("session-9");
      expect(event.body.model).toBe("gpt-5");
      for (const reply of event.replies)
        expect(fakeReplySchema.safeParse(reply).success).toBe(true);
    }
    expect(session.events.map((e) => e.index)).toEqual(session.events.map((_, i) => i));
    const first = runEvents(session.events)[0]!;
    expect(first.body.timestamp).toBe("2026-11-29T10:00:00+01:00");
  });

  it("keeps tool rounds, retries, duplicates and injections consistent", () => {
    const session = generateAgentSession({ seed: 5, turns: 30 });
    const events = session.events;
    let lastRunId: string | undefined;
    let openCalls: string[] = [];
    let openRunId: string | undefined;
    for (const event of events) {
      if (event.type === "restart") continue;
      const { body } = event;
      switch (event.type) {
        case "user-turn":
        case "tool-results": {
          if (event.type === "tool-results") {
            expect(body.runId).toBe(openRunId);
            expect(
              body.action.type === "tool-results" && body.action.results.map((r) => r.callId),
            ).toEqual(openCalls);
          } else {
            expect(openCalls).toEqual([]);
            expect(body.requestContext).toBeDefined();
          }
          const reply = finalOf(event.replies[0]!);
          openCalls = reply.type === "tool-calls" ? reply.calls.map((c) => c.callId!) : [];
          openRunId = body.runId;
          expect(event.expectedEnd).toBe(
            reply.type === "tool-calls" ? "awaiting-tools" : "completed",
          );
          break;
        }
        case "retry":
          expect(event.body).toBe(
            events[event.retryOf]!.type !== "restart" &&
              (events[event.retryOf] as { body: unknown }).body,
          );
          expect(event.replies).toEqual([]);
          break;
        case "background-completion":
          if (event.duplicate) {
            const previous = events[event.index - 1]!;
            expect(previous.type === "background-completion" && previous.body.action).toEqual(
              body.action,
            );
            expect(event.replies).toEqual([]);
          }
          break;
        case "inject-context":
          expect(body.action.type === "inject-context" && body.action.expectedRunId).toBe(
            lastRunId,
          );
          break;
        case "summarize":
          expect(event.replies).toHaveLength(1);
          break;
        default: {
          const exhaustive: never = event;
          throw new Error(String(exhaustive));
        }
      }
      lastRunId = body.runId;
    }
    expect(openCalls).toEqual([]);
    const afterCompaction = events.find((e) => e.type === "user-turn" && e.afterCompaction);
    expect(afterCompaction).toBeDefined();
  });

  it("switches behaviours off and validates its options", () => {
    const { stats } = generateAgentSession({
      seed: 3,
      turns: 10,
      features: {
        toolRounds: false,
        contextChanges: false,
        modeSwitches: false,
        background: false,
        injections: false,
        retries: false,
        restarts: false,
        compaction: false,
      },
    });
    expect(stats).toMatchObject({
      userTurns: 10,
      runRequests: 10,
      providerCalls: 10,
      toolRounds: 0,
      contextChanges: 0,
      modeSwitches: 0,
      backgroundCompletions: 0,
      injections: 0,
      retries: 0,
      restarts: 0,
      compactions: 0,
    });
    expect(() => generateAgentSession({ seed: 1, turns: 0 })).toThrow(RangeError);
    expect(() => generateAgentSession({ seed: 1, turns: 1, startTime: "yesterday" })).toThrow(
      RangeError,
    );
    const utc = generateAgentSession({ seed: 1, turns: 1, startTime: "2026-01-01T00:00:00Z" });
    expect(utc.events[0]!.type !== "restart" && utc.events[0]!.body.timestamp).toBe(
      "2026-01-01T00:00:00Z",
    );
  });

  it("carries large tool results", () => {
    const { stats } = generateAgentSession({ seed: 11, turns: 10, toolResultChars: 20_000 });
    expect(stats.toolOutputChars).toBeGreaterThan(100_000);
  });

  it("is available as a fast-check arbitrary that prints its seed", () => {
    const samples = fc.sample(agentSessionArbitrary({ turns: 3 }), { numRuns: 3, seed: 1 });
    expect(samples.map((session) => session.stats.userTurns)).toEqual([3, 3, 3]);
    expect(fc.stringify(samples[0])).toBe(
      `generateAgentSession({"turns":3,"seed":${samples[0]!.seed}})`,
    );
    expect(JSON.stringify(samples[0])).toBe(
      JSON.stringify(generateAgentSession({ turns: 3, seed: samples[0]!.seed })),
    );
  });
});
