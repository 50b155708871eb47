import { createCheckpointState, encodeCheckpoint } from "@cursor/checkpoint";
import { HistoryLog, createRuntimeMessage } from "@cursor/run";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuthenticator } from "../http/auth.js";
import type { RunningGateway } from "../start-gateway.js";
import { temporaryFolders, testCheckpointSecret } from "./e2e-environment.js";
import { userTurn } from "./e2e-helpers.js";
import { describeEachStore, e2eStores } from "./e2e-stores.js";
import type { E2eStore, StoreKind } from "./e2e-stores.js";
import { startInProcessGateway } from "./in-process-gateway.js";
import { startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";
import { lastCheckpoint, runEnded, streamRun } from "./sse-run.js";

const tokenA = "tenant-a-token-0123456789";
const tokenB = "tenant-b-token-0123456789";
const folders = temporaryFolders("malformed");
let provider: ScriptedProvider;
let gateway: RunningGateway;
const stores = e2eStores();
// One gateway and store per store suite below (they run one after the other).
let store: E2eStore;
let baseline: string;
const checkpoints = { a: "", other: "", b: "", fresh: "", foreignSecret: "" };

/**
 * A genuine checkpoint of a conversation this store has never seen ("conv-fresh", one runtime
 * message), made the way a sibling gateway process of the deployment would; and the same signed
 * with another secret (a forgery).
 */
function freshCheckpoint(secret: string): string {
  const history = new HistoryLog({ epoch: 0, messages: [] });
  history.append([
    createRuntimeMessage({
      eventId: "turn.msg-fresh.0",
      runtimeKind: "user-turn",
      content: [{ type: "text", text: "Hello from another process." }],
    }),
  ]);
  return encodeCheckpoint({
    state: createCheckpointState({ conversationId: "conv-fresh", history, turns: [] }),
    secret,
    audience: createAuthenticator([tokenA])(`Bearer ${tokenA}`)!.id,
  });
}
const providerCallsAtStart = { count: 0 };

async function runAs(token: string, body: Record<string, unknown>) {
  const result = await streamRun(gateway.url, body, { token });
  expect(result.status).toBe(200);
  return result;
}

async function startGatewayWithConversations(kind: StoreKind): Promise<void> {
  provider = await startScriptedProvider();
  store = await stores.create({ kind, dataDir: folders.create() });
  gateway = await startInProcessGateway({
    provider,
    dataDir: store.dataDir,
    extra: {
      CURSOR_GATEWAY_TOKENS: `${tokenA},${tokenB}`,
      CURSOR_GATEWAY_CHECKPOINT_SECRET: testCheckpointSecret,
      ...store.environment,
    },
  });
  // Tenant A: conv-a (one completed turn, then a turn waiting for call_a_1) and conv-other.
  provider.reply = { type: "text", text: "First answer." };
  await runAs(tokenA, userTurn({ conversationId: "conv-a", turn: 1 }));
  provider.reply = {
    type: "tool-calls",
    calls: [{ name: "read_file", arguments: '{"path":"/w/a.ts"}', callId: "call_a_1" }],
  };
  const waiting = await runAs(tokenA, userTurn({ conversationId: "conv-a", turn: 2 }));
  expect(runEnded(waiting.events)).toEqual({ reason: "awaiting-tools" });
  checkpoints.a = lastCheckpoint(waiting.events)!.checkpoint;
  provider.reply = { type: "text", text: "Other answer." };
  checkpoints.other = lastCheckpoint(
    (await runAs(tokenA, userTurn({ conversationId: "conv-other", turn: 1 }))).events,
  )!.checkpoint;
  // Tenant B: conv-b.
  provider.reply = { type: "text", text: "B answer." };
  checkpoints.b = lastCheckpoint(
    (await runAs(tokenB, userTurn({ conversationId: "conv-b", turn: 1 }))).events,
  )!.checkpoint;
  checkpoints.fresh = freshCheckpoint(testCheckpointSecret);
  checkpoints.foreignSecret = freshCheckpoint("another-deployment-secret-0123456789abcdef");
  provider.reply = { type: "text", text: "A rejected request must never reach the provider." };
  providerCallsAtStart.count = provider.fake.requests.length;
  baseline = await store.dump();
}

afterAll(async () => {
  await stores.dropAll();
  folders.removeAll();
});

interface RawRequest {
  readonly method?: "GET" | "POST";
  readonly path?: string;
  /** null: no authorization header; a string: the whole header value. */
  readonly authorization?: string | null;
  /** null: no content-type header. */
  readonly contentType?: string | null;
  readonly body?: string | Buffer;
}

async function send(request: RawRequest): Promise<{ status: number; body: unknown }> {
  const method = request.method ?? "POST";
  const authorization =
    request.authorization === undefined ? `Bearer ${tokenA}` : request.authorization;
  const contentType = request.contentType === undefined ? "application/json" : request.contentType;
  const headers: Record<string, string> = {};
  if (authorization !== null) headers.authorization = authorization;
  if (contentType !== null && method === "POST") headers["content-type"] = contentType;
  const response = await fetch(`${gateway.url}${request.path ?? "/v1/runs"}`, {
    method,
    headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as unknown };
}

const json = (value: unknown): RawRequest => ({ body: JSON.stringify(value) });

/** A valid user turn on a conversation nobody has: every case below breaks it somehow. */
const valid = (overrides: Record<string, unknown> = {}) => ({
  conversationId: "conv-new",
  runId: "run-new",
  mode: "agent",
  action: { type: "user-message", message: { id: "msg-new", text: "Hello there." } },
  ...overrides,
});
const withMessage = (message: Record<string, unknown>) =>
  valid({ action: { type: "user-message", message: { id: "msg-new", text: "Hi.", ...message } } });
const withAction = (action: Record<string, unknown>, conversationId = "conv-a") =>
  valid({ conversationId, runId: "run-2", action });

const tamper = (token: string) => {
  const middle = Math.floor(token.length / 2);
  const replacement = token[middle] === "A" ? "B" : "A";
  return `${token.slice(0, middle)}${replacement}${token.slice(middle + 1)}`;
};

interface Case {
  readonly name: string;
  readonly request: () => RawRequest;
  readonly status: number;
  readonly code: string;
  /** For `invalid_request` schema violations: paths that `issues` must name. */
  readonly paths?: readonly string[];
}

const huge = (bytes: number) => "x".repeat(bytes);

const cases: Case[] = [
  // Authentication and tenants.
  {
    name: "no authorization header",
    request: () => ({ ...json(valid()), authorization: null }),
    status: 401,
    code: "unauthorized",
  },
  {
    name: "unknown bearer token",
    request: () => ({ ...json(valid()), authorization: "Bearer not-a-configured-token-123" }),
    status: 401,
    code: "unauthorized",
  },
  {
    name: "basic auth instead of a bearer token",
    request: () => ({
      ...json(valid()),
      authorization: `Basic ${Buffer.from(`x:${tokenA}`).toString("base64")}`,
    }),
    status: 401,
    code: "unauthorized",
  },
  {
    name: "empty bearer token",
    request: () => ({ ...json(valid()), authorization: "Bearer " }),
    status: 401,
    code: "unauthorized",
  },
  {
    name: "a token with a suffix",
    request: () => ({ ...json(valid()), authorization: `Bearer ${tokenA}x` }),
    status: 401,
    code: "unauthorized",
  },
  {
    name: "GET without a token",
    request: () => ({ method: "GET", path: "/v1/conversations/conv-a", authorization: null }),
    status: 401,
    code: "unauthorized",
  },
  {
    name: "another tenant's conversation",
    request: () => ({
      method: "GET",
      path: "/v1/conversations/conv-a",
      authorization: `Bearer ${tokenB}`,
    }),
    status: 404,
    code: "not_found",
  },
  {
    name: "another tenant's history",
    request: () => ({
      method: "GET",
      path: "/v1/conversations/conv-a/history",
      authorization: `Bearer ${tokenB}`,
    }),
    status: 404,
    code: "not_found",
  },
  {
    name: "another tenant's provider requests",
    request: () => ({
      method: "GET",
      path: "/v1/conversations/conv-a/provider-requests?limit=5",
      authorization: `Bearer ${tokenB}`,
    }),
    status: 404,
    code: "not_found",
  },
  {
    name: "cancelling another tenant's conversation",
    request: () => ({
      method: "POST",
      path: "/v1/conversations/conv-a/cancel",
      authorization: `Bearer ${tokenB}`,
      contentType: null,
    }),
    status: 404,
    code: "not_found",
  },
  {
    name: "cancelling an unknown conversation",
    request: () => ({
      method: "POST",
      path: "/v1/conversations/conv-none/cancel",
      contentType: null,
    }),
    status: 404,
    code: "not_found",
  },
  {
    name: "tool results into another tenant's conversation",
    request: () => ({
      ...json(withAction({ type: "tool-results", results: [{ callId: "call_a_1", output: "x" }] })),
      authorization: `Bearer ${tokenB}`,
    }),
    status: 404,
    code: "not_found",
  },
  {
    name: "an unknown conversation",
    request: () => ({ method: "GET", path: "/v1/conversations/conv-none" }),
    status: 404,
    code: "not_found",
  },

  // Transport: media type, JSON, size.
  {
    name: "not JSON",
    request: () => ({ body: '{"conversationId": "conv-new", ' }),
    status: 400,
    code: "invalid_request",
  },
  {
    name: "an empty JSON body",
    request: () => ({ body: "" }),
    status: 400,
    code: "invalid_request",
  },
  {
    name: "text/plain",
    request: () => ({ body: JSON.stringify(valid()), contentType: "text/plain" }),
    status: 415,
    code: "unsupported_media_type",
  },
  {
    name: "form encoded",
    request: () => ({
      body: "conversationId=conv-new",
      contentType: "application/x-www-form-urlencoded",
    }),
    status: 415,
    code: "unsupported_media_type",
  },
  {
    name: "no content-type",
    request: () => ({ body: JSON.stringify(valid()), contentType: null }),
    status: 415,
    code: "unsupported_media_type",
  },
  {
    name: "more than 32 MiB",
    request: () =>
      json(
        valid({
          action: { type: "user-message", message: { id: "m", text: huge(33 * 1024 * 1024) } },
        }),
      ),
    status: 413,
    code: "too_large",
  },
  {
    name: "a JSON array",
    request: () => json([valid()]),
    status: 400,
    code: "invalid_request",
    paths: ["(root)"],
  },
  { name: "JSON null", request: () => ({ body: "null" }), status: 400, code: "invalid_request" },
  {
    name: "a JSON string",
    request: () => json("run this"),
    status: 400,
    code: "invalid_request",
    paths: ["(root)"],
  },

  // Schema: every offending path named.
  {
    name: "missing conversationId",
    request: () => json({ ...valid(), conversationId: undefined }),
    status: 400,
    code: "invalid_request",
    paths: ["conversationId"],
  },
  {
    name: "numeric conversationId",
    request: () => json(valid({ conversationId: 42 })),
    status: 400,
    code: "invalid_request",
    paths: ["conversationId"],
  },
  {
    name: "empty conversationId",
    request: () => json(valid({ conversationId: "" })),
    status: 400,
    code: "invalid_request",
    paths: ["conversationId"],
  },
  {
    name: "129-character conversationId",
    request: () => json(valid({ conversationId: "c".repeat(129) })),
    status: 400,
    code: "invalid_request",
    paths: ["conversationId"],
  },
  {
    name: "conversationId with a slash",
    request: () => json(valid({ conversationId: "a/b" })),
    status: 400,
    code: "invalid_request",
    paths: ["conversationId"],
  },
  {
    name: "a 1 MiB conversationId",
    request: () => json(valid({ conversationId: huge(1024 * 1024) })),
    status: 400,
    code: "invalid_request",
    paths: ["conversationId"],
  },
  {
    name: "missing runId and mode",
    request: () => json({ ...valid(), runId: undefined, mode: undefined }),
    status: 400,
    code: "invalid_request",
    paths: ["runId", "mode"],
  },
  {
    name: "runId with spaces",
    request: () => json(valid({ runId: "run 1" })),
    status: 400,
    code: "invalid_request",
    paths: ["runId"],
  },
  {
    name: "unknown mode",
    request: () => json(valid({ mode: "yolo" })),
    status: 400,
    code: "invalid_request",
    paths: ["mode"],
  },
  {
    name: "missing action",
    request: () => json({ ...valid(), action: undefined }),
    status: 400,
    code: "invalid_request",
    paths: ["action"],
  },
  {
    name: "unknown action",
    request: () => json(valid({ action: { type: "delete-everything" } })),
    status: 400,
    code: "invalid_request",
    paths: ["action.type"],
  },
  {
    name: "action as a string",
    request: () => json(valid({ action: "user-message" })),
    status: 400,
    code: "invalid_request",
    paths: ["action"],
  },
  {
    name: "user-message without message",
    request: () => json(valid({ action: { type: "user-message" } })),
    status: 400,
    code: "invalid_request",
    paths: ["action.message"],
  },
  {
    name: "numeric message text",
    request: () => json(withMessage({ text: 7 })),
    status: 400,
    code: "invalid_request",
    paths: ["action.message.text"],
  },
  {
    name: "missing message id",
    request: () => json(valid({ action: { type: "user-message", message: { text: "Hi." } } })),
    status: 400,
    code: "invalid_request",
    paths: ["action.message.id"],
  },
  {
    name: "a 2 MiB query",
    request: () => json(withMessage({ text: huge(2 * 1024 * 1024) })),
    status: 400,
    code: "invalid_request",
    paths: ["action.message.text"],
  },
  {
    name: "unknown selected context kind",
    request: () => json(withMessage({ selectedContext: [{ kind: "secret", content: "x" }] })),
    status: 400,
    code: "invalid_request",
    paths: ["action.message.selectedContext[0].kind"],
  },
  {
    name: "an image that is not an image",
    request: () => json(withMessage({ images: [{ mimeType: "text/html", data: "PGI+" }] })),
    status: 400,
    code: "invalid_request",
    paths: ["action.message.images[0].mimeType"],
  },
  {
    name: "an unknown top-level field",
    request: () => json(valid({ temperature: 2 })),
    status: 400,
    code: "invalid_request",
    paths: ["temperature"],
  },
  {
    name: "timestamp without an offset",
    request: () => json(valid({ timestamp: "2026-11-29T10:00:00" })),
    status: 400,
    code: "invalid_request",
    paths: ["timestamp"],
  },
  {
    name: "model with spaces",
    request: () => json(valid({ model: "gpt 5" })),
    status: 400,
    code: "invalid_request",
    paths: ["model"],
  },
  {
    name: "rules as a string",
    request: () => json(valid({ requestContext: { rules: "be nice" } })),
    status: 400,
    code: "invalid_request",
    paths: ["requestContext.rules"],
  },
  {
    name: "empty tool results",
    request: () => json(withAction({ type: "tool-results", results: [] })),
    status: 400,
    code: "invalid_request",
    paths: ["action.results"],
  },
  {
    name: "duplicate tool result call ids",
    request: () =>
      json(
        withAction({
          type: "tool-results",
          results: [
            { callId: "call_a_1", output: "x" },
            { callId: "call_a_1", output: "y" },
          ],
        }),
      ),
    status: 400,
    code: "invalid_request",
    paths: ["action.results[1].callId"],
  },
  {
    name: "blank injected text",
    request: () => json(withAction({ type: "inject-context", injectionId: "i-1", text: "   " })),
    status: 400,
    code: "invalid_request",
    paths: ["action.text"],
  },
  {
    name: "unknown background status",
    request: () =>
      json(
        withAction({
          type: "background-completion",
          completions: [{ taskId: "t", kind: "shell", status: "exploded", title: "x" }],
        }),
      ),
    status: 400,
    code: "invalid_request",
    paths: ["action.completions[0].status"],
  },
  {
    name: "summarize with a field",
    request: () => json(withAction({ type: "summarize", keep: 3 })),
    status: 400,
    code: "invalid_request",
    paths: ["action.keep"],
  },
  {
    name: "an empty checkpoint",
    request: () => json(valid({ checkpoint: "" })),
    status: 400,
    code: "invalid_request",
    paths: ["checkpoint"],
  },
  {
    name: "a bad conversation id in the path",
    request: () => ({ method: "GET", path: `/v1/conversations/${"c".repeat(200)}` }),
    status: 400,
    code: "invalid_request",
    paths: ["conversationId"],
  },
  {
    name: "an unknown conversation with a 128-character id",
    request: () => ({ method: "GET", path: `/v1/conversations/${"c".repeat(128)}` }),
    status: 404,
    code: "not_found",
  },
  {
    name: "a 2000-character path parameter",
    request: () => ({ method: "GET", path: `/v1/conversations/${"c".repeat(2000)}/history` }),
    status: 400,
    code: "invalid_request",
    paths: ["conversationId"],
  },
  {
    name: "an unknown route",
    request: () => ({ method: "GET", path: "/v1/everything" }),
    status: 404,
    code: "not_found",
  },
  {
    name: "limit 0",
    request: () => ({ method: "GET", path: "/v1/conversations/conv-a/provider-requests?limit=0" }),
    status: 400,
    code: "invalid_request",
    paths: ["limit"],
  },
  {
    name: "a non-numeric limit",
    request: () => ({
      method: "GET",
      path: "/v1/conversations/conv-a/provider-requests?limit=all",
    }),
    status: 400,
    code: "invalid_request",
    paths: ["limit"],
  },

  // Semantics: conversations, runs and tool calls that do not exist or do not match.
  {
    name: "tool results for an unknown call",
    request: () =>
      json(withAction({ type: "tool-results", results: [{ callId: "call_nobody", output: "x" }] })),
    status: 409,
    code: "conflict",
  },
  {
    name: "tool results for another run",
    request: () =>
      json({
        ...withAction({ type: "tool-results", results: [{ callId: "call_a_1", output: "x" }] }),
        runId: "run-1",
      }),
    status: 409,
    code: "conflict",
  },
  {
    name: "tool results for an unknown conversation",
    request: () =>
      json(
        withAction(
          { type: "tool-results", results: [{ callId: "call_a_1", output: "x" }] },
          "conv-none",
        ),
      ),
    status: 404,
    code: "not_found",
  },
  {
    name: "injected context into an unknown conversation",
    request: () =>
      json(withAction({ type: "inject-context", injectionId: "i-1", text: "x" }, "conv-none")),
    status: 404,
    code: "not_found",
  },
  {
    name: "summarize an unknown conversation",
    request: () => json(withAction({ type: "summarize" }, "conv-none")),
    status: 404,
    code: "not_found",
  },
  {
    name: "expectedRunId that is not the last run",
    request: () =>
      json(
        withAction({
          type: "inject-context",
          injectionId: "i-1",
          expectedRunId: "run-1",
          text: "x",
        }),
      ),
    status: 409,
    code: "conflict",
  },

  // Checkpoints: forged, truncated, foreign.
  {
    name: "a tampered checkpoint",
    request: () => json(valid({ conversationId: "conv-a", checkpoint: tamper(checkpoints.a) })),
    status: 400,
    code: "invalid_checkpoint",
  },
  {
    name: "a truncated checkpoint",
    request: () =>
      json(
        valid({
          conversationId: "conv-a",
          checkpoint: checkpoints.a.slice(0, Math.floor(checkpoints.a.length / 2)),
        }),
      ),
    status: 400,
    code: "invalid_checkpoint",
  },
  {
    name: "a checkpoint with bytes appended",
    request: () => json(valid({ conversationId: "conv-a", checkpoint: `${checkpoints.a}AAAA` })),
    status: 400,
    code: "invalid_checkpoint",
  },
  {
    name: "a checkpoint that is not one",
    request: () => json(valid({ conversationId: "conv-fresh", checkpoint: "not-a-checkpoint" })),
    status: 400,
    code: "invalid_checkpoint",
  },
  {
    name: "a tampered checkpoint resuming an unknown conversation",
    request: () =>
      json(valid({ conversationId: "conv-fresh", checkpoint: tamper(checkpoints.fresh) })),
    status: 400,
    code: "invalid_checkpoint",
  },
  {
    name: "a truncated checkpoint resuming an unknown conversation",
    request: () =>
      json(valid({ conversationId: "conv-fresh", checkpoint: checkpoints.fresh.slice(0, -40) })),
    status: 400,
    code: "invalid_checkpoint",
  },
  {
    name: "a checkpoint signed with another secret",
    request: () =>
      json(valid({ conversationId: "conv-fresh", checkpoint: checkpoints.foreignSecret })),
    status: 400,
    code: "invalid_checkpoint",
  },
  {
    name: "a tampered checkpoint of another conversation",
    request: () =>
      json({
        ...withAction(
          { type: "tool-results", results: [{ callId: "call_a_1", output: "x" }] },
          "conv-fresh",
        ),
        checkpoint: tamper(checkpoints.a),
      }),
    status: 409,
    code: "conflict",
  },
  {
    name: "a checkpoint of another conversation",
    request: () => json(valid({ conversationId: "conv-a", checkpoint: checkpoints.other })),
    status: 409,
    code: "conflict",
  },
  {
    name: "a checkpoint of another conversation, resuming",
    request: () => json(valid({ conversationId: "conv-fresh", checkpoint: checkpoints.other })),
    status: 409,
    code: "conflict",
  },
  {
    name: "another tenant's checkpoint",
    request: () => json(valid({ conversationId: "conv-b", checkpoint: checkpoints.b })),
    status: 400,
    code: "invalid_checkpoint",
  },
  {
    name: "another conversation's checkpoint on a fresh id",
    request: () =>
      json({
        ...withAction(
          { type: "tool-results", results: [{ callId: "call_a_1", output: "x" }] },
          "conv-fresh",
        ),
        checkpoint: checkpoints.a,
      }),
    status: 409,
    code: "conflict",
  },
];

describeEachStore("malformed input", ({ kind }) => {
  beforeAll(() => startGatewayWithConversations(kind));
  afterAll(async () => {
    await gateway.close();
    await provider.fake.close();
  });

  describe("a rejected request", () => {
    it("covers at least 40 malformed bodies", () => {
      expect(cases.length).toBeGreaterThanOrEqual(40);
      expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
    });

    it.each(cases)("$name → $status $code, the store unchanged", async (testCase) => {
      const response = await send(testCase.request());
      expect(response.status).toBe(testCase.status);
      const { error } = response.body as {
        error: { code: string; message: string; issues?: { path: string; message: string }[] };
      };
      expect(Object.keys(response.body as object)).toEqual(["error"]);
      expect(error.code).toBe(testCase.code);
      expect(typeof error.message).toBe("string");
      expect(error.message.length).toBeGreaterThan(0);
      if (testCase.paths !== undefined) {
        expect(error.issues?.map((issue) => issue.path)).toEqual(
          expect.arrayContaining([...testCase.paths]),
        );
      }
      if (error.issues !== undefined) {
        for (const issue of error.issues)
          expect(Object.keys(issue).sort()).toEqual(["message", "path"]);
      }
      // Nothing was stored and no provider was called.
      expect(await store.dump()).toBe(baseline);
      expect(provider.fake.requests.length).toBe(providerCallsAtStart.count);
    });
  });
});
