import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PrefixCacheSimulator } from "@cursor/fake-provider";
import { createGatewayClient } from "../client/gateway-client.js";
import type { GatewayClient, RunEvent } from "../client/gateway-client.js";
import { demoSession } from "./demo-session.js";
import { runDemoTool, writeDemoWorkspace } from "./demo-workspace.js";

interface Writable {
  write(text: string): unknown;
}

/** Starts `cursor-gateway serve` (simulated provider) as a child process; resolves its URL. */
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
      CURSOR_GATEWAY_MODELS_FILE: "",
      CURSOR_GATEWAY_LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) =>
      reject(new Error(`the gateway exited with code ${code}: ${output}`)),
    );
  });
  return {
    url,
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

const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;

/** What the model did in one call: the tool it called, or (the start of) its answer. */
function modelAction(events: readonly RunEvent[]): string {
  const calls = events
    .filter((event) => event.event === "tool.call")
    .map((event) => {
      const call = event.data as { name: string; arguments: string };
      return `${call.name} ${call.arguments}`;
    });
  if (calls.length > 0) return `calls ${calls.join(", ")}`;
  const text = events
    .filter((event) => event.event === "text.delta")
    .map((event) => (event.data as { text: string }).text)
    .join("");
  return `answers "${text}"`;
}

/**
 * `cursor-gateway demo`: an agent session through a real `cursor-gateway serve` process on the
 * simulated provider. Its scripted agent searches and reads files of a small demo workspace (the
 * demo runs those tool calls for real and sends the results back, as Cursor does), through a
 * context change and its reversion, a mode switch, a background completion and a retry; for
 * every provider call the demo prints what the model did and the input, cached and
 * best-possible cached tokens the provider reported.
 */
export async function runDemo({ out }: { argv: readonly string[]; out: Writable }): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "cursor-gateway-demo-"));
  const workspace = join(dataDir, "workspace");
  writeDemoWorkspace(workspace);
  const gateway = await startGatewayProcess(join(dataDir, "gateway"));
  const client = createGatewayClient({ baseURL: gateway.url });
  // The simulated provider caches like OpenAI: the best possible read is the previous call's
  // input rounded down to its cache granularity (1024 + 128·k tokens).
  const granule = new PrefixCacheSimulator();
  out.write(`gateway ${gateway.url} (simulated provider), workspace ${workspace}\n\n`);
  out.write(
    " call | request                                   | input tok | cached tok | cached % | of best possible\n",
  );
  out.write(
    "------+-------------------------------------------+-----------+------------+----------+-----------------\n",
  );
  let call = 0;
  let previousInput = 0;
  const totals = { input: 0, cached: 0, best: 0 };
  const report = (label: string, events: readonly RunEvent[]) => {
    for (const event of events.filter((e) => e.event === "usage")) {
      const usage = event.data as { inputTokens: number; cachedInputTokens: number };
      call += 1;
      const best = Math.min(granule.openaiGranule(previousInput), usage.inputTokens);
      previousInput = usage.inputTokens;
      totals.input += usage.inputTokens;
      totals.cached += usage.cachedInputTokens;
      totals.best += best;
      out.write(
        ` ${String(call).padStart(4)} | ${clip(label, 41).padEnd(41)} | ${String(usage.inputTokens).padStart(9)} | ${String(usage.cachedInputTokens).padStart(10)} | ${pct(usage.cachedInputTokens, usage.inputTokens).padStart(8)} | ${best === 0 ? "     (first)" : pct(usage.cachedInputTokens, best).padStart(16)}\n`,
      );
    }
    out.write(`      |   model ${clip(modelAction(events), 92)}\n`);
  };
  try {
    for (const step of demoSession("demo-conversation")) {
      let events = await runOrThrow(client, step.body);
      report(step.label, events);
      // Run the tool calls on the workspace and send the results, as a Cursor client would.
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
              ...runDemoTool({ root: workspace, name: c.name, args: c.arguments }),
            })),
          },
        });
        report(`  ↳ tool results, round ${round}`, events);
      }
    }
    // A retry of the last user turn (same run id, message id and content): nothing appended,
    // no provider call.
    const last = demoSession("demo-conversation").at(-1)!;
    const messages = async () =>
      (
        (await client.get("/v1/conversations/demo-conversation")).body as {
          messages: number;
        }
      ).messages;
    const before = await messages();
    const retried = await runOrThrow(client, last.body);
    const after = await messages();
    const calls = retried.filter((event) => event.event === "usage").length;
    out.write(
      `\nretry of the last turn: ended ${ended(retried)}, ${calls} provider calls, messages ${before} → ${after} (nothing appended)\n`,
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

async function runOrThrow(client: GatewayClient, body: unknown): Promise<readonly RunEvent[]> {
  const response = await client.run(body);
  if (response.status !== 200)
    throw new Error(`the gateway answered ${response.status}: ${JSON.stringify(response.error)}`);
  const reason = ended(response.events);
  if (reason === "failed" || reason === undefined) {
    throw new Error(`the run failed: ${JSON.stringify(response.events.at(-1))}`);
  }
  return response.events;
}
