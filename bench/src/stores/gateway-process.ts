import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { gatewayNodeFlags } from "../harness/gateway-process.js";

/**
 * `cursor-gateway serve` (the built CLI of @cursor/server) as a child process: what an operator
 * runs, one per instance behind a load balancer. Resolves once it printed its ready line.
 */
export class GatewayProcess {
  readonly url: string;
  readonly #child: ChildProcess;

  private constructor(url: string, child: ChildProcess) {
    this.url = url;
    this.#child = child;
  }

  static async start(environment: Record<string, string>): Promise<GatewayProcess> {
    const require = createRequire(import.meta.url);
    const cli = join(dirname(require.resolve("@cursor/server/package.json")), "dist", "cli.js");
    // Only the variables given: the bench's own shell must not configure the measured gateway.
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) => !/^(CURSOR_GATEWAY_|OPENAI_|ANTHROPIC_)/.test(name),
      ),
    );
    const child = spawn(process.execPath, [...gatewayNodeFlags, cli, "serve"], {
      env: {
        ...inherited,
        CURSOR_GATEWAY_HOST: "127.0.0.1",
        CURSOR_GATEWAY_PORT: "0",
        CURSOR_GATEWAY_LOG_LEVEL: "warn",
        ...environment,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let output = "";
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /cursor-gateway listening on (\S+)/.exec(output);
        if (match) resolve(match[1]!);
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", onData);
      child.once("exit", (code) => reject(new Error(`the gateway exited ${code}: ${output}`)));
    });
    return new GatewayProcess(url, child);
  }

  /** SIGTERM, then waits for the exit (open runs finish, the store closes). */
  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#child.exitCode !== null || this.#child.signalCode !== null) return resolve();
      this.#child.once("exit", () => resolve());
      this.#child.kill("SIGTERM");
    });
  }
}
