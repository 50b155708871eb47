import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { FakeReply } from "@cursor/testkit";

/** One call the fake provider received, as far as the bench reads it. */
export interface FakeCallRecord {
  readonly sequence: number;
  readonly status: number;
  readonly path: string;
  /** The parsed JSON body in received key order (re-serialised, the very bytes sent). */
  readonly body: unknown;
}

/**
 * The `cursor-fake-provider` bin (@cursor/fake-provider) as a child process: latency and memory measurements
 * must not count the fake provider's own work (tokenising, hashing, recording every body) as the
 * gateway's.
 */
export class FakeProviderProcess {
  readonly url: string;
  readonly #child: ChildProcess;

  private constructor(url: string, child: ChildProcess) {
    this.url = url;
    this.#child = child;
  }

  get openaiBaseURL(): string {
    return `${this.url}/v1`;
  }

  /** `args`: more of the bin's options (`--agent`: the scripted agent answers unqueued calls). */
  static async start({
    args = [],
  }: { args?: readonly string[] } = {}): Promise<FakeProviderProcess> {
    const require = createRequire(import.meta.url);
    const bin = join(
      dirname(require.resolve("@cursor/fake-provider/package.json")),
      "dist",
      "cli.js",
    );
    const child = spawn(process.execPath, [bin, "--port", "0", ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let output = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) =>
        reject(new Error(`cursor-fake-provider exited ${code}: ${output}`)),
      );
    });
    return new FakeProviderProcess(url, child);
  }

  async enqueue(replies: readonly FakeReply[]): Promise<void> {
    if (replies.length === 0) return;
    await this.#post("/_fake/enqueue", { replies });
  }

  /** The bodies of every call it received since the last reset, in arrival order. */
  async requestBodies(): Promise<unknown[]> {
    const response = await fetch(`${this.url}/_fake/requests`);
    if (!response.ok) throw new Error(`/_fake/requests answered ${response.status}`);
    const answer = (await response.json()) as { requests: { body: unknown }[] };
    return answer.requests.map((request) => request.body);
  }

  /** Every call it received since the last reset, in arrival order: sequence, status, body. */
  async records(): Promise<FakeCallRecord[]> {
    const response = await fetch(`${this.url}/_fake/requests`);
    if (!response.ok) throw new Error(`/_fake/requests answered ${response.status}`);
    const answer = (await response.json()) as { requests: FakeCallRecord[] };
    return answer.requests.map(({ sequence, status, path, body }) => ({
      sequence,
      status,
      path,
      body,
    }));
  }

  /** Forgets recorded requests and cache entries (the process would otherwise keep every body). */
  async reset(): Promise<void> {
    await this.#post("/_fake/reset", {});
  }

  async #post(path: string, body: unknown): Promise<void> {
    const response = await fetch(`${this.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok)
      throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    await response.text();
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#child.exitCode !== null) return resolve();
      this.#child.once("exit", () => resolve());
      this.#child.kill("SIGTERM");
    });
  }
}
