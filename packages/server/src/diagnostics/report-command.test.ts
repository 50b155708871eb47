import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { summarizerInstructions } from "@cursor/request";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayClient } from "../client/gateway-client.js";
import { loadConfig } from "../config.js";
import { startGateway } from "../start-gateway.js";
import type { RunningGateway } from "../start-gateway.js";
import { loadFixture } from "./__fixtures__/load-fixture.js";
import { analyzeRequests, formatReport, runReportCommand } from "./report-command.js";
import type { RequestEntry } from "./request-entries.js";

const call = (n: number) => loadFixture(`openai-responses-call-${n}`);
const usage = (input: number, cached: number) => ({
  inputTokens: input,
  cachedInputTokens: cached,
  cacheWriteTokens: 0,
  outputTokens: 10,
});

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      out: { write: (text: string) => out.push(text) },
      err: { write: (text: string) => err.push(text) },
    },
    out: () => out.join(""),
    err: () => err.join(""),
  };
}

describe("analyzeRequests", () => {
  const summarizer = { model: "model-x", instructions: summarizerInstructions, input: [] };
  const edited = call(3);
  (edited.input as { content: { text: string }[] }[])[1]!.content[0]!.text += " 10:09";
  const entries: RequestEntry[] = [
    { body: call(1), provider: "openai-responses", usage: usage(6000, 0) },
    { body: call(2), provider: "openai-responses", usage: usage(6100, 5888) },
    { body: edited, provider: "openai-responses", usage: usage(6300, 5120) },
    { body: summarizer, provider: "openai-responses" },
    { body: call(1), provider: "openai-responses" },
  ];
  const calls = analyzeRequests(entries);

  it("compares each call with the model call before it", () => {
    expect(calls.map((c) => c.comparedWith)).toEqual([undefined, 1, 2, undefined, 3]);
    expect(calls[1]!.diff?.cause.kind).toBe("append-only");
    expect(calls[1]!.keptShare).toBe(1);
    expect(calls[2]!.diff?.cause.kind).toBe("edited");
    expect(calls[2]!.diff?.divergence?.path).toBe("input[1].content[0].text");
  });

  it("skips the summariser and expects a reset after it", () => {
    expect(calls[3]).toMatchObject({ summarizer: true, estimated: true });
    expect(calls[4]).toMatchObject({ afterCompaction: true, estimated: true });
    expect(calls[4]!.diff?.cause.kind).toBe("edited");
  });

  it("prints the per-call table, the cached ratio and every divergence", () => {
    const text = formatReport({ conversationId: "c-diag", url: "http://gateway", calls });
    expect(text).toContain("conversation c-diag at http://gateway: 5 provider call(s)");
    expect(text).toContain(
      "    2 |                          |     6 100 |      5 888 |    96.5% | 100.0% of call 1 (append-only)",
    );
    expect(text).toContain("compaction summariser call (not compared)");
    expect(text).toContain("Σ over 4 model call(s): 22 166 input tokens, 14 720 cached (66.4%)");
    expect(text).toContain("divergences (2):");
    expect(text).toContain("call 3 vs call 2: first divergence input[1].content[0].text (value)");
    expect(text).toContain("  likely cause: an earlier message was edited");
    expect(text).toContain("— after a compaction, a prefix reset is expected");
  });
});

describe("cursor-gateway report against a running gateway", () => {
  let gateway: RunningGateway;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "cursor-gateway-report-"));
    gateway = await startGateway({
      config: loadConfig({
        CURSOR_GATEWAY_PROVIDER: "simulated",
        CURSOR_GATEWAY_PORT: "0",
        CURSOR_GATEWAY_DATA_DIR: dataDir,
      }),
    });
    const client = createGatewayClient({ baseURL: gateway.url });
    for (const n of [1, 2, 3]) {
      const answer = await client.run({
        conversationId: "report-test",
        runId: `run-${n}`,
        mode: "agent",
        timestamp: `2026-11-29T10:0${n}:00+01:00`,
        action: { type: "user-message", message: { id: `msg-${n}`, text: `Question ${n}?` } },
        requestContext: { rules: [{ name: "style", path: "style.mdc", content: "Be brief." }] },
      });
      expect(answer.status).toBe(200);
    }
  });

  afterAll(async () => {
    await gateway.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("reports the provider's usage per call from the records, nothing estimated", async () => {
    const { io: streams, out } = io();
    const code = await runReportCommand({
      argv: ["--conversation", "report-test", "--url", gateway.url],
      io: streams,
      environment: {},
    });
    expect(code).toBe(0);
    const text = out();
    expect(text).toContain(
      `conversation report-test at ${gateway.url}: 3 provider call(s) with usage records`,
    );
    expect(text).toMatch(/Σ over 3 call\(s\): [\d ]+ input tokens, [\d ]+ cached \(\d+\.\d%\)/);
    expect(text).toContain("    2 | ");
    expect(text).toContain("extends call 1");
    expect(text).toMatch(/cost \$\d\.\d{5} \(the same tokens uncached: \$\d\.\d{5}, saved/);
    expect(text).toContain("prices: built-in table: list prices as known to the AI model");
    expect(text).toContain("no prefix breaks");
    expect(text).not.toContain("estimated");
  });

  it("prints the records as JSON, equal to the provider's usage events", async () => {
    const { io: streams, out } = io();
    await runReportCommand({
      argv: ["--conversation", "report-test", "--url", gateway.url, "--json"],
      io: streams,
      environment: {},
    });
    const report = JSON.parse(out()) as {
      records: { usage: { cachedInputTokens: number }; prefix: { status: string } }[];
      estimated: unknown[];
    };
    expect(report.records).toHaveLength(3);
    expect(report.estimated).toEqual([]);
    expect(report.records.map((r) => r.prefix.status)).toEqual(["first", "extends", "extends"]);
    expect(report.records[2]!.usage.cachedInputTokens).toBeGreaterThan(1024);
  });

  it("fails clearly for an unknown conversation, an unreachable gateway and bad arguments", async () => {
    const unknown = io();
    expect(
      await runReportCommand({
        argv: ["--conversation", "nobody", "--url", gateway.url],
        io: unknown.io,
        environment: {},
      }),
    ).toBe(1);
    expect(unknown.err()).toContain("answered 404");
    const unreachable = io();
    expect(
      await runReportCommand({
        argv: ["--conversation", "x", "--url", "http://127.0.0.1:9"],
        io: unreachable.io,
        environment: {},
      }),
    ).toBe(1);
    expect(unreachable.err()).toContain("cannot reach http://127.0.0.1:9");
    const missing = io();
    expect(await runReportCommand({ argv: [], io: missing.io, environment: {} })).toBe(2);
    expect(missing.err()).toContain("--conversation is required");
  });
});

describe("cursor-gateway report where records are missing", () => {
  const body = (n: number) => ({ model: "gpt-5", input: [{ role: "user", content: `q${n}` }] });
  const record = (n: number) => ({
    callId: `c${n}`,
    seq: n,
    runId: "r",
    kind: "model",
    attempt: 1,
    epoch: 0,
    at: `2026-11-29T10:0${n}:00.000Z`,
    provider: "openai-responses",
    model: "gpt-5",
    catalogModel: "gpt-5",
    outcome: "ok",
    usage: { inputTokens: 2000, cachedInputTokens: 1024, cacheWriteTokens: 0, outputTokens: 5 },
    cachedRatio: 0.512,
    timings: { timeToFirstTokenMs: 5, durationMs: 9, gatewayOverheadMs: 1 },
    prefix: {
      status: n === 1 ? "first" : "extends",
      historyItems: n,
      sharedItems: n === 1 ? null : n - 1,
      previousItems: n === 1 ? null : n - 1,
      previousCallId: n === 1 ? null : `c${n - 1}`,
      divergence: null,
      divergenceView: false,
    },
    process: { id: "p", startedAt: "2026-11-29T10:00:00.000Z" },
    cost: { usd: 0.001, uncachedUsd: 0.002, savedUsd: 0.001 },
    price: null,
  });

  async function stubGateway(withRecords: boolean) {
    const { createServer } = await import("node:http");
    const server = createServer((request, response) => {
      const send = (status: number, value: unknown) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(value));
      };
      const path = new URL(request.url!, "http://x").pathname;
      if (path === "/v1/conversations/c/provider-requests") {
        return send(200, {
          requests: [1, 2, 3].map((n) => ({
            ...(n < 3 ? { callId: `c${n}` } : {}),
            at: `2026-11-29T10:0${n}:00.000Z`,
            provider: "openai-responses",
            body: {
              ...body(n),
              input: [1, 2, 3].slice(0, n).map((k) => body(k).input[0]),
            },
            sharedPrefixItems: n - 1,
          })),
        });
      }
      if (path === "/v1/conversations/c/calls" && withRecords) {
        return send(200, { conversationId: "c", calls: [record(1), record(2)], retentionDays: 30 });
      }
      if (path === "/v1/usage" && withRecords) return send(404, { error: { message: "no route" } });
      return send(404, { error: { code: "not_found", message: `no route GET ${request.url}` } });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    return {
      url: `http://127.0.0.1:${port}`,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  it("estimates only the calls without a record, and says so", async () => {
    const stub = await stubGateway(true);
    try {
      const { io: streams, out } = io();
      expect(
        await runReportCommand({
          argv: ["--conversation", "c", "--url", stub.url],
          io: streams,
          environment: {},
        }),
      ).toBe(0);
      const text = out();
      expect(text).toContain("2 provider call(s) with usage records");
      expect(text).toContain("Σ over 2 call(s): 4 000 input tokens, 2 048 cached (51.2%)");
      expect(text).toContain(
        "estimated: 1 call(s) in the gateway's provider-request log have no usage record",
      );
      expect(text).toMatch(/ {4}3 \| .* \| +~\d/);
    } finally {
      await stub.close();
    }
  });

  it("estimates everything from a gateway without usage records, and says so", async () => {
    const stub = await stubGateway(false);
    try {
      const { io: streams, out } = io();
      expect(
        await runReportCommand({
          argv: ["--conversation", "c", "--url", stub.url],
          io: streams,
          environment: {},
        }),
      ).toBe(0);
      expect(out()).toContain("3 provider call(s) in the gateway's log");
      expect(out()).toContain("estimated: this gateway keeps no usage records");
    } finally {
      await stub.close();
    }
  });
});
