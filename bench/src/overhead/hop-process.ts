import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The overhead part's floors, each built beside the CLI and run as its own process. */
export type HopKind =
  /** `pass-through-proxy-main.ts`: pipes bytes both ways, parses nothing (any Node hop's floor). */
  | "pass-through-proxy"
  /** `sdk-relay-main.ts`: Fastify + the official SDK relaying the body (this design's floor). */
  | "sdk-relay";

/**
 * A hop in front of `upstream` as its own process: the same body through it, through the gateway
 * and straight to the provider shows what a hop of that kind costs and what the gateway adds on
 * top.
 */
export class HopProcess {
  readonly url: string;
  readonly #child: ChildProcess;

  private constructor(url: string, child: ChildProcess) {
    this.url = url;
    this.#child = child;
  }

  static async start({ kind, upstream }: { kind: HopKind; upstream: string }): Promise<HopProcess> {
    const main = join(dirname(fileURLToPath(import.meta.url)), `${kind}.js`);
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
      child.once("exit", (code) => reject(new Error(`the ${kind} exited ${code}: ${output}`)));
    });
    return new HopProcess(url, child);
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
