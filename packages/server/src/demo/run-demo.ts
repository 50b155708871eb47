import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createGatewayClient } from "../client/gateway-client.js";
import type { RunEvent } from "../client/gateway-client.js";
import { simulatedProviderFileName } from "../start-gateway.js";
import { demoSession } from "./demo-session.js";

interface Writable {
  write(text: string): unknown;
}

interface FakeRequestRecord {
  readonly usage: { inputTokens: number; cachedInputTokens: number } | null;
  readonly cache: { bestPossibleCachedTokens: number } | null;
}

/** Starts `cursor-gateway serve` as a child process on a fresh data folder; resolves its URLs. */
async function startGatewayProcess(dataDir: string) {
  const cli = fileURLToPath(new URL("./cli.js", import.meta.url));
  const child = spawn(process.execPath, [cli, "serve"], {
    env: {
      ...process.env,
      CURSOR_GATEWAY_PROVIDER: "simulated",
      CURSOR_GATEWAY_PORT: "0",
      CURSOR_GATEWAY_HOST: "127.0.0.1",
      CURSOR_GATEWAY_DATA_DIR: dataDir,
      CURSOR_GATEWAY_TOKENS: "",
      CURSOR_GATEWAY_LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const gateway = await new Promise<string>((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (\S+) /.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) =>
      reject(new Error(`the gateway exited with code ${code}: ${output}`)),
    );
  });
  // The simulated provider is private to the process: its address and access token are in the
  // data folder this demo created, nowhere else.
  const simulated = JSON.parse(readFileSync(join(dataDir, simulatedProviderFileName), "utf8")) as {
    url: string;
    accessToken: string;
  };
  return {
    gateway,
    simulated: simulated.url,
    simulatedHeaders: { authorization: `Bearer ${simulated.accessToken}` },
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

function pct(part: number, whole: number): string {
  return whole === 0 ? "   –  " : `${((100 * part) / whole).toFixed(1).padStart(5)}%`;
}

/**
 * `cursor-gateway demo`: a scripted agent session (tool rounds, a context change and its
 * reversion, a mode switch, a background completion) through a real gateway process against the
 * simulated provider; prints input, cached and best-possible cached tokens per provider call.
 */
export async function runDemo({ out }: { argv: readonly string[]; out: Writable }): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "cursor-gateway-demo-"));
  const gateway = await startGatewayProcess(dataDir);
  const client = createGatewayClient({ baseURL: gateway.gateway });
  const enqueue = async (replies: readonly unknown[]) => {
    const response = await fetch(`${gateway.simulated}/_fake/enqueue`, {
      method: "POST",
      headers: { "content-type": "application/json", ...gateway.simulatedHeaders },
      body: JSON.stringify({ replies }),
    });
    if (!response.ok)
      throw new Error(`could not script the simulated provider: ${await response.text()}`);
  };
  out.write(
    `gateway ${gateway.gateway} (simulated provider ${gateway.simulated}), data ${dataDir}\n\n`,
  );
  out.write(
    " call | request                                          | input tok | cached tok | cached % | of best possible\n",
  );
  out.write(
    "------+--------------------------------------------------+-----------+------------+----------+-----------------\n",
  );
  let call = 0;
  let seen = 0;
  const totals = { input: 0, cached: 0, best: 0 };
  const report = async (label: string) => {
    const response = await fetch(`${gateway.simulated}/_fake/requests`, {
      headers: gateway.simulatedHeaders,
    });
    const { requests: records } = (await response.json()) as { requests: FakeRequestRecord[] };
    for (const record of records.slice(seen)) {
      call += 1;
      const input = record.usage?.inputTokens ?? 0;
      const cached = record.usage?.cachedInputTokens ?? 0;
      const best = record.cache?.bestPossibleCachedTokens ?? 0;
      totals.input += input;
      totals.cached += cached;
      totals.best += best;
      out.write(
        ` ${String(call).padStart(4)} | ${label.slice(0, 48).padEnd(48)} | ${String(input).padStart(9)} | ${String(cached).padStart(10)} | ${pct(cached, input).padStart(8)} | ${best === 0 ? "     (first)" : pct(cached, best).padStart(16)}\n`,
      );
    }
    seen = records.length;
  };
  try {
    for (const step of demoSession("demo-conversation")) {
      await enqueue(step.replies);
      let events = await runOrThrow(client, step.body);
      await report(step.label);
      // Answer tool calls until the run completes, as a Cursor client would.
      let round = 0;
      while (ended(events) === "awaiting-tools") {
        round += 1;
        const calls = events
          .filter((e) => e.event === "tool.call")
          .map((e) => e.data as { callId: string; name: string; arguments: string });
        events = await runOrThrow(client, {
          conversationId: step.body.conversationId,
          runId: step.body.runId,
          mode: step.body.mode,
          action: {
            type: "tool-results",
            results: calls.map((c) => ({
              callId: c.callId,
              output: step.toolOutput?.(c.name, c.arguments) ?? "ok",
            })),
          },
        });
        await report(`  ↳ tool results, round ${round}`);
      }
    }
    // A retry of the last user turn (same run id, message id and content): nothing appended,
    // no provider call.
    const last = demoSession("demo-conversation").at(-1)!;
    const before = (
      (await client.get("/v1/conversations/demo-conversation")).body as { messages: number }
    ).messages;
    const retried = await runOrThrow(client, last.body);
    const after = (
      (await client.get("/v1/conversations/demo-conversation")).body as { messages: number }
    ).messages;
    await report("retry (should make no provider call)");
    out.write(
      `\nretry of the last turn: ended ${ended(retried)}, messages ${before} → ${after} (nothing appended)\n`,
    );
    out.write(
      `session: ${call} provider calls, ${totals.input} input tokens, ${totals.cached} cached (${pct(totals.cached, totals.input).trim()}), ${pct(totals.cached, totals.best).trim()} of the best possible\n`,
    );
  } finally {
    await gateway.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function ended(events: readonly RunEvent[]): string | undefined {
  const last = events.at(-1);
  return last?.event === "run.ended" ? (last.data as { reason: string }).reason : undefined;
}

async function runOrThrow(
  client: ReturnType<typeof createGatewayClient>,
  body: unknown,
): Promise<readonly RunEvent[]> {
  const response = await client.run(body);
  if (response.status !== 200)
    throw new Error(`the gateway answered ${response.status}: ${JSON.stringify(response.error)}`);
  const reason = ended(response.events);
  if (reason === "failed" || reason === undefined) {
    throw new Error(`the run failed: ${JSON.stringify(response.events.at(-1))}`);
  }
  return response.events;
}
