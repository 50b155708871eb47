import { spawn } from "node:child_process";
import type { ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";

/** The built CLI: the end-to-end tests drive the real `cursor-gateway serve` process. */
export const gatewayCliPath = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

export interface GatewayExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface GatewayProcess {
  readonly url: string;
  readonly pid: number;
  /** Everything the process printed so far (stdout and stderr interleaved). */
  output(): string;
  /** SIGTERM, then waits for the exit (graceful shutdown). */
  stop(): Promise<GatewayExit>;
  /** SIGKILL (kill -9), then waits for the exit. */
  kill(): Promise<GatewayExit>;
  /** Resolves when the process exited, however. */
  readonly exited: Promise<GatewayExit>;
}

// Variables of the developer's shell that must not leak into a test gateway.
const inheritedPrefixes = ["CURSOR_GATEWAY_", "OPENAI_", "ANTHROPIC_"];

function baseEnvironment(): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (inheritedPrefixes.some((prefix) => name.startsWith(prefix))) continue;
    environment[name] = value;
  }
  return environment;
}

const running = new Set<ChildProcessByStdio<null, Readable, Readable>>();

/** Kills every gateway process a test left running (afterAll / afterEach safety net). */
export async function killAllGatewayProcesses(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        }),
    ),
  );
}

class GatewayStartError extends Error {
  readonly exit: GatewayExit;
  readonly output: string;
  constructor({ exit, output }: { exit: GatewayExit; output: string }) {
    super(`the gateway exited before it was ready (${exit.code ?? exit.signal}): ${output}`);
    this.name = "GatewayStartError";
    this.exit = exit;
    this.output = output;
  }
}

/**
 * Starts `node dist/cli.js serve` with `environment` (on top of a scrubbed copy of this
 * process's environment; port 0 and loopback unless given) and resolves once it printed its
 * ready line. Rejects with `GatewayStartError` when it exits first.
 */
export async function startGatewayProcess(
  environment: Record<string, string>,
  { nodeArgs = [] }: { nodeArgs?: readonly string[] } = {},
): Promise<GatewayProcess> {
  const child = spawn(process.execPath, [...nodeArgs, gatewayCliPath, "serve"], {
    env: {
      ...baseEnvironment(),
      CURSOR_GATEWAY_HOST: "127.0.0.1",
      CURSOR_GATEWAY_PORT: "0",
      CURSOR_GATEWAY_LOG_LEVEL: "warn",
      ...environment,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  // "close", not "exit": it comes once the process is gone and its output has all been read,
  // so a test reading `output()` after `exited` sees the last line the process wrote.
  const exited = new Promise<GatewayExit>((resolve) => {
    child.once("close", (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /cursor-gateway listening on (\S+)/.exec(output);
      if (match) {
        child.stdout.off("data", onData);
        resolve(match[1]!);
      }
    };
    child.stdout.on("data", onData);
    void exited.then((exit) => reject(new GatewayStartError({ exit, output })));
  });
  const signal = (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    return exited;
  };
  return {
    url,
    pid: child.pid!,
    output: () => output,
    stop: () => signal("SIGTERM"),
    kill: () => signal("SIGKILL"),
    exited,
  };
}

/** Runs `serve` expecting it to refuse to start; resolves its exit and output. */
export async function expectGatewayRefusal(
  environment: Record<string, string>,
): Promise<{ exit: GatewayExit; output: string }> {
  try {
    const gateway = await startGatewayProcess(environment);
    await gateway.kill();
    throw new Error(`the gateway started on ${gateway.url} instead of refusing`);
  } catch (error) {
    if (error instanceof GatewayStartError) return { exit: error.exit, output: error.output };
    throw error;
  }
}
