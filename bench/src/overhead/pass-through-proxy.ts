import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The bare pass-through proxy (`pass-through-proxy-main.ts`, built as `dist/pass-through-proxy.js` beside the CLI) as its
 * own process in front of `upstream`: the same body through it, through the gateway and straight
 * to the provider shows what any Node hop costs and what the gateway adds on top.
 */
export class PassThroughProxy {
  readonly url: string;
  readonly #child: ChildProcess;

  private constructor(url: string, child: ChildProcess) {
    this.url = url;
    this.#child = child;
  }

  static async start(upstream: string): Promise<PassThroughProxy> {
    const main = join(dirname(fileURLToPath(import.meta.url)), "pass-through-proxy.js");
    const child = spawn(process.execPath, [main, upstream], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let output = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`the proxy exited ${code}: ${output}`)));
    });
    return new PassThroughProxy(url, child);
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
