import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { gatewayEnvironment } from "./gateway-harness.js";
import type { BenchProvider } from "./gateway-harness.js";

/**
 * The Node flags of the README's production command (`node --max-semi-space-size=64 …/cli.js
 * serve`): the measured gateway runs as a deployment runs it.
 */
export const gatewayNodeFlags = ["--max-semi-space-size=64"];

/**
 * `cursor-gateway serve` (this workspace's @cursor/server build) as its own process, configured
 * like the in-process harness. Latency is measured against it the way the public gateway
 * benchmarks measure a gateway: a separate service, like the pass-through proxy beside it, so the
 * benchmark's own client work (sending, reading every stream) never runs on the gateway's thread.
 */
export class GatewayProcess {
  readonly url: string;
  readonly #child: ChildProcess;

  private constructor(url: string, child: ChildProcess) {
    this.url = url;
    this.#child = child;
  }

  static async start(options: {
    provider: BenchProvider;
    providerURL: string;
    dataDir: string;
    contextWindow?: number;
  }): Promise<GatewayProcess> {
    const require = createRequire(import.meta.url);
    const cli = join(dirname(require.resolve("@cursor/server/package.json")), "dist", "cli.js");
    return GatewayProcess.spawn({
      cli,
      environment: { ...gatewayEnvironment(options), CURSOR_GATEWAY_LOG_LEVEL: "error" },
    });
  }

  /**
   * `<cli> serve` of any gateway build with exactly `environment` as its gateway settings: the
   * operator's own `CURSOR_GATEWAY_*` and provider variables are not inherited.
   */
  static async spawn({
    cli,
    environment,
  }: {
    cli: string;
    environment: Record<string, string>;
  }): Promise<GatewayProcess> {
    const inherited: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value === undefined || /^(CURSOR_GATEWAY_|OPENAI_|ANTHROPIC_)/.test(name)) continue;
      inherited[name] = value;
    }
    // `CURSOR_BENCH_GATEWAY_CPU_PROF=DIR`: the gateway process writes a V8 CPU profile there when
    // it stops (for Chrome DevTools), the way to see what the measured process spends its time on.
    const profileDir = process.env.CURSOR_BENCH_GATEWAY_CPU_PROF;
    const profiling =
      profileDir === undefined || profileDir === ""
        ? []
        : [
            "--cpu-prof",
            "--cpu-prof-dir",
            profileDir,
            "--cpu-prof-interval",
            // Finer sampling (µs) for a focused look at one short call; 250 µs by default.
            process.env.CURSOR_BENCH_GATEWAY_CPU_PROF_INTERVAL ?? "250",
          ];
    const child = spawn(process.execPath, [...gatewayNodeFlags, ...profiling, cli, "serve"], {
      env: { ...inherited, ...environment },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let output = "";
      child.stdout!.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`the gateway exited ${code}: ${output}`)));
    });
    return new GatewayProcess(url, child);
  }

  /** The process id (its CPU time is read around the measured calls). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#child.exitCode !== null || this.#child.signalCode !== null) return resolve();
      this.#child.once("exit", () => resolve());
      this.#child.kill("SIGTERM");
    });
  }
}
