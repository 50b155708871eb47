import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parsePrometheusText } from "../http/__fixtures__/prometheus-text.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayClient } from "../client/gateway-client.js";
import { loadConfig } from "../config.js";
import { startGateway } from "../start-gateway.js";
import { agentScript } from "./agent-script.js";
import { gatewayEnvironment, temporaryFolders, testProviderKey } from "./e2e-environment.js";
import { conversationView, userTurn, verifyConversation } from "./e2e-helpers.js";
import {
  expectGatewayRefusal,
  killAllGatewayProcesses,
  startGatewayProcess,
} from "./gateway-process.js";
import type { GatewayProcess } from "./gateway-process.js";
import { historyItems } from "./provider-bodies.js";
import { runScript, startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";
import { eventNames, lastCheckpoint, runEnded, streamRun } from "./sse-run.js";

const token = "operations-token-0123456789";
const otherToken = "operations-other-tenant-0123456789";
const folders = temporaryFolders("operations");
let provider: ScriptedProvider;
let dataDir: string;
let gateway: GatewayProcess;

const environment = () =>
  gatewayEnvironment({
    api: "openai-responses",
    fake: provider.fake,
    dataDir,
    extra: { CURSOR_GATEWAY_TOKENS: `${token},${otherToken}` },
  });

beforeAll(async () => {
  provider = await startScriptedProvider();
  dataDir = folders.create();
  gateway = await startGatewayProcess(environment());
});

afterAll(async () => {
  await gateway.stop();
  await killAllGatewayProcesses();
  await provider.fake.close();
  folders.removeAll();
});

/** Prometheus text → `name{labels}` → value. */
/** Sums a metric's samples whose labels include `labels` (a strict exposition parse). */
function parseMetrics(text: string) {
  const families = parsePrometheusText(text);
  return (name: string, labels: Record<string, string> = {}) =>
    [...families.values()]
      .flatMap((family) => family.samples)
      .filter(
        (sample) =>
          sample.name === name &&
          Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
      )
      .reduce((total, sample) => total + sample.value, 0);
}

describe("start-up", () => {
  it(
    "refuses to listen beyond loopback without tokens, and a broken configuration",
    { timeout: 60_000 },
    async () => {
      const open = await expectGatewayRefusal({
        CURSOR_GATEWAY_HOST: "0.0.0.0",
        CURSOR_GATEWAY_PROVIDER: "simulated",
        CURSOR_GATEWAY_DATA_DIR: folders.create(),
      });
      expect(open.exit).toEqual({ code: 2, signal: null });
      expect(open.output).toContain("CURSOR_GATEWAY_TOKENS must be set to listen on 0.0.0.0");

      const keyless = await expectGatewayRefusal({
        CURSOR_GATEWAY_PROVIDER: "anthropic",
        CURSOR_GATEWAY_DATA_DIR: folders.create(),
      });
      expect(keyless.exit).toEqual({ code: 2, signal: null });
      expect(keyless.output).toContain("CURSOR_GATEWAY_PROVIDER=anthropic needs ANTHROPIC_API_KEY");
    },
  );

  it(
    "refuses a data folder whose checkpoint-secret file is empty or short, as a short variable",
    { timeout: 60_000 },
    async () => {
      for (const content of ["", "short-secret\n"]) {
        const dataDir = folders.create();
        writeFileSync(join(dataDir, "checkpoint-secret"), content, { mode: 0o600 });
        const refused = await expectGatewayRefusal({
          CURSOR_GATEWAY_PROVIDER: "simulated",
          CURSOR_GATEWAY_DATA_DIR: dataDir,
        });
        expect(refused.exit).toEqual({ code: 2, signal: null });
        expect(refused.output).toContain(
          `${join(dataDir, "checkpoint-secret")}: the checkpoint secret holds`,
        );
        expect(readFileSync(join(dataDir, "checkpoint-secret"), "utf8")).toBe(content);
      }
      const short = await expectGatewayRefusal({
        CURSOR_GATEWAY_PROVIDER: "simulated",
        CURSOR_GATEWAY_DATA_DIR: folders.create(),
        CURSOR_GATEWAY_CHECKPOINT_SECRET: "short-secret",
      });
      expect(short.exit).toEqual({ code: 2, signal: null });
      expect(short.output).toContain("CURSOR_GATEWAY_CHECKPOINT_SECRET: at least 32 characters");
    },
  );
});

describe("the simulated provider", () => {
  it(
    "is the default without a provider key and answers a turn offline",
    { timeout: 60_000 },
    async () => {
      const simulated = await startGatewayProcess({ CURSOR_GATEWAY_DATA_DIR: folders.create() });
      try {
        expect(simulated.output()).toMatch(
          /listening on http:\/\/127\.0\.0\.1:\d+ — provider simulated, model simulated-model/,
        );
        // Its fake provider is private: the ready line names the gateway's URL only.
        expect(simulated.output().match(/http:\/\/[^\s,]+/g)).toEqual([simulated.url]);
        const result = await streamRun(
          simulated.url,
          userTurn({ conversationId: "offline", turn: 1 }),
        );
        expect(runEnded(result.events)).toEqual({ reason: "completed" });
        expect(result.events.filter((event) => event.event === "usage")).toHaveLength(1);
        await verifyConversation(simulated.url, "offline");
      } finally {
        expect(await simulated.stop()).toEqual({ code: 0, signal: null });
      }
    },
  );

  it("answers nobody but the gateway: every route needs its random token, no control routes", async () => {
    const running = await startGateway({
      config: loadConfig({
        CURSOR_GATEWAY_HOST: "127.0.0.1",
        CURSOR_GATEWAY_PORT: "0",
        CURSOR_GATEWAY_PROVIDER: "simulated",
        CURSOR_GATEWAY_DATA_DIR: folders.create(),
      }),
    });
    try {
      const fakeURL = running.simulatedProviderURL!;
      expect(fakeURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const attempts: Record<string, string>[] = [
        {},
        { authorization: "Bearer guessed" },
        { "x-api-key": "guessed" },
      ];
      for (const headers of attempts) {
        for (const path of ["/_fake/requests", "/_fake/stats"]) {
          expect((await fetch(`${fakeURL}${path}`, { headers })).status).toBe(401);
        }
        const forged = await fetch(`${fakeURL}/v1/responses`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify({ model: "simulated-model", input: "hi" }),
        });
        expect(forged.status).toBe(401);
      }
      // The gateway itself holds the token: its turn is answered.
      const result = await streamRun(running.url, userTurn({ conversationId: "private", turn: 1 }));
      expect(runEnded(result.events)).toEqual({ reason: "completed" });
    } finally {
      await running.close();
    }
  });
});

describe("a running gateway", () => {
  it("answers /healthz and /metrics without a token, everything else only with one", async () => {
    const health = await fetch(`${gateway.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    const metrics = await fetch(`${gateway.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get("content-type")).toMatch(/^text\/plain/);
    const anonymous = await fetch(`${gateway.url}/v1/conversations/any`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: "unauthorized" } });
  });

  it("counts runs by end reason, provider calls and tokens in /metrics; lists provider requests", async () => {
    const conversationId = "metrics";
    const before = parseMetrics(await (await fetch(`${gateway.url}/metrics`)).text());
    const calls = provider.fake.requests.length;
    // Turn 1: two tool rounds (awaiting-tools twice, then completed); turn 2: completed.
    const script = agentScript({ conversationId, callIdPrefix: "call", turns: 2 });
    await runScript({ baseURL: gateway.url, provider, requests: script, token });
    // Turn 3 fails: the key is refused.
    provider.reply = { type: "error", status: 401, message: "bad key" };
    const failed = await streamRun(gateway.url, userTurn({ conversationId, turn: 3 }), { token });
    expect(runEnded(failed.events)).toMatchObject({ reason: "failed" });

    const recorded = provider.fake.requests.slice(calls);
    const answered = recorded.filter((request) => request.usage !== null);
    const after = parseMetrics(await (await fetch(`${gateway.url}/metrics`)).text());
    const delta = (name: string, labels: Record<string, string> = {}) =>
      after(name, labels) - before(name, labels);
    const openai = { provider: "openai-responses" };
    expect(delta("cursor_gateway_runs_total", { reason: "awaiting-tools" })).toBe(2);
    expect(delta("cursor_gateway_runs_total", { reason: "completed" })).toBe(2);
    expect(delta("cursor_gateway_runs_total", { reason: "failed" })).toBe(1);
    expect(delta("cursor_gateway_provider_calls_total", openai)).toBe(recorded.length);
    expect(delta("cursor_gateway_provider_calls_total", { ...openai, outcome: "failed" })).toBe(1);
    expect(delta("cursor_gateway_provider_call_duration_seconds_count", openai)).toBe(
      recorded.length,
    );
    const sum = (field: "inputTokens" | "cachedInputTokens" | "outputTokens") =>
      answered.reduce((total, request) => total + request.usage![field], 0);
    expect(delta("cursor_gateway_input_tokens_total", openai)).toBe(sum("inputTokens"));
    expect(delta("cursor_gateway_cached_input_tokens_total", openai)).toBe(
      sum("cachedInputTokens"),
    );
    expect(delta("cursor_gateway_output_tokens_total", openai)).toBe(sum("outputTokens"));
    expect(sum("cachedInputTokens")).toBeGreaterThan(0);
    expect(
      after("cursor_gateway_http_requests_total", { route: "/v1/runs", status: "200" }),
    ).toBeGreaterThanOrEqual(5);

    // The last three provider requests, oldest first, as sent, with their shared prefixes.
    const client = createGatewayClient({ baseURL: gateway.url, token });
    const listed = await client.get(
      `/v1/conversations/${conversationId}/provider-requests?limit=3`,
    );
    expect(listed.status).toBe(200);
    const requests = (
      listed.body as {
        requests: { at: string; provider: string; body: unknown; sharedPrefixItems: number }[];
      }
    ).requests;
    expect(requests).toHaveLength(3);
    const lastThree = recorded.slice(-3);
    requests.forEach((request, index) => {
      // The contract's fields (extra ones are allowed).
      expect(Object.keys(request)).toEqual(
        expect.arrayContaining(["at", "body", "provider", "sharedPrefixItems"]),
      );
      expect(request.provider).toBe("openai-responses");
      expect(Number.isNaN(Date.parse(request.at))).toBe(false);
      expect(historyItems("openai-responses", request.body)).toEqual(
        historyItems("openai-responses", lastThree[index]!.body),
      );
    });
    // Each call appended to the one before: it shares all of the previous call's items.
    const previous = recorded.at(-4)!.body;
    expect(requests.map((request) => request.sharedPrefixItems)).toEqual([
      historyItems("openai-responses", previous).length,
      historyItems("openai-responses", lastThree[0]!.body).length,
      historyItems("openai-responses", lastThree[1]!.body).length,
    ]);
    expect(JSON.stringify(requests)).not.toContain(testProviderKey);
    const all = await client.get(`/v1/conversations/${conversationId}/provider-requests`);
    expect((all.body as { requests: unknown[] }).requests).toHaveLength(recorded.length);
  });

  it("accepts back the latest checkpoint and an older genuine one on the same store", async () => {
    const conversationId = "checkpoint-echo";
    provider.reply = { type: "text", text: "One." };
    const first = await streamRun(gateway.url, userTurn({ conversationId, turn: 1 }), { token });
    const older = lastCheckpoint(first.events)!.checkpoint;
    provider.reply = { type: "text", text: "Two." };
    const second = await streamRun(
      gateway.url,
      { ...userTurn({ conversationId, turn: 2 }), checkpoint: older },
      { token },
    );
    expect(runEnded(second.events)).toEqual({ reason: "completed" });
    const latest = lastCheckpoint(second.events)!;
    expect(latest.messages).toBe(5);
    provider.reply = { type: "text", text: "Three." };
    const third = await streamRun(
      gateway.url,
      { ...userTurn({ conversationId, turn: 3 }), checkpoint: latest.checkpoint },
      { token },
    );
    expect(runEnded(third.events)).toEqual({ reason: "completed" });
    // A checkpoint of the past does not roll the conversation back: the store is the truth.
    provider.reply = { type: "text", text: "Four." };
    const fourth = await streamRun(
      gateway.url,
      { ...userTurn({ conversationId, turn: 4 }), checkpoint: older },
      { token },
    );
    expect(runEnded(fourth.events)).toEqual({ reason: "completed" });
    expect(lastCheckpoint(fourth.events)!.messages).toBe(9);
  });
});

describe("concurrent runs", () => {
  it("of different conversations and of two tenants' same conversation id run side by side", async () => {
    provider.reply = {
      type: "slow",
      delayMsPerEvent: 10,
      reply: { type: "text", text: "An answer streamed slowly enough to overlap.", chunks: 10 },
    };
    const runs = [
      { token, conversationId: "shared-id", text: "Tenant one asks." },
      { token: otherToken, conversationId: "shared-id", text: "Tenant two asks." },
      { token, conversationId: "another-id", text: "Tenant one asks again." },
    ];
    const results = await Promise.all(
      runs.map((run) =>
        streamRun(
          gateway.url,
          userTurn({ conversationId: run.conversationId, turn: 1, text: run.text }),
          { token: run.token },
        ),
      ),
    );
    for (const result of results) expect(runEnded(result.events)).toEqual({ reason: "completed" });
    // Each tenant sees its own conversation under the shared id, and only its own.
    for (const run of runs) {
      const view = await conversationView(gateway.url, run.conversationId, run.token);
      const texts = JSON.stringify(view.history.body);
      expect(texts).toContain(run.text);
      for (const other of runs) {
        if (other.conversationId === run.conversationId && other.token !== run.token) {
          expect(texts).not.toContain(other.text);
        }
      }
    }
  });
});

describe("cancel across tenants", () => {
  it("answers another tenant's cancel with 404 and leaves its run going", async () => {
    const conversationId = "cancel-tenants";
    provider.reply = {
      type: "slow",
      delayMsPerEvent: 20,
      reply: {
        type: "text",
        text: "Tenant one's answer, not cancelled by tenant two.",
        chunks: 20,
      },
    };
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const run = streamRun(gateway.url, userTurn({ conversationId, turn: 1 }), {
      token,
      onEvent: (event) => {
        if (event.event === "text.delta") started();
      },
    });
    await running;
    const other = createGatewayClient({ baseURL: gateway.url, token: otherToken });
    expect(await other.post(`/v1/conversations/${conversationId}/cancel`)).toEqual({
      status: 404,
      body: {
        error: { code: "not_found", message: expect.stringContaining(conversationId) as string },
      },
    });
    expect(runEnded((await run).events)).toEqual({ reason: "completed" });
    const own = createGatewayClient({ baseURL: gateway.url, token });
    expect(await own.post(`/v1/conversations/${conversationId}/cancel`)).toEqual({
      status: 200,
      body: { cancelled: false },
    });
    expect((await other.post(`/v1/conversations/${conversationId}/cancel`)).status).toBe(404);
  });
});

describe("SIGTERM", () => {
  it(
    "ends an open run cleanly, exits 0 and leaves nothing half-committed",
    { timeout: 60_000 },
    async () => {
      const conversationId = "shutdown";
      provider.reply = { type: "text", text: "Before the shutdown." };
      await streamRun(gateway.url, userTurn({ conversationId, turn: 1 }), { token });
      const before = await conversationView(gateway.url, conversationId, token);

      provider.reply = {
        type: "slow",
        delayMsPerEvent: 40,
        reply: { type: "text", text: "A long answer the shutdown interrupts.", chunks: 30 },
      };
      let exit: ReturnType<GatewayProcess["stop"]> | undefined;
      const interrupted = await streamRun(gateway.url, userTurn({ conversationId, turn: 2 }), {
        token,
        onEvent: (event) => {
          if (event.event === "text.delta" && exit === undefined) exit = gateway.stop();
        },
      });
      expect(await exit).toEqual({ code: 0, signal: null });
      // The client got a proper end, exactly once and last.
      expect(interrupted.disconnected).toBe(false);
      expect(eventNames(interrupted.events).at(-1)).toBe("run.ended");
      expect(runEnded(interrupted.events)).toEqual({ reason: "cancelled" });
      expect(gateway.output()).toContain("cursor-gateway: SIGTERM, finishing open runs");

      gateway = await startGatewayProcess(environment());
      await verifyConversation(gateway.url, conversationId, token);
      const after = await conversationView(gateway.url, conversationId, token);
      expect(after).toEqual(before);
      // Nothing of the key in what the process logged.
      expect(gateway.output()).not.toContain(testProviderKey);
    },
  );
});
