import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo, Server } from "node:net";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { temporaryFolders } from "./e2e-environment.js";
import { gatewayCliPath, killAllGatewayProcesses, startGatewayProcess } from "./gateway-process.js";

// Each mistake a newcomer makes, through the built CLI: a clear message saying what to change,
// exit code 2, and never a stack trace.
const folders = temporaryFolders("mistakes");
afterAll(async () => {
  await killAllGatewayProcesses();
  folders.removeAll();
});

interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `node dist/cli.js <args>` with only `env` (and PATH) set; resolves when it exits. */
function runCli({
  args = ["serve"],
  env,
  user,
}: {
  args?: readonly string[];
  env: Record<string, string>;
  user?: { uid: number; gid: number };
}): Promise<CliRun> {
  const child = spawn(process.execPath, [gatewayCliPath, ...args], {
    env: {
      PATH: process.env.PATH ?? "",
      CURSOR_GATEWAY_HOST: "127.0.0.1",
      CURSOR_GATEWAY_PORT: "0",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    ...(user === undefined ? {} : user),
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  return new Promise((resolve) => {
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * A refusal: exit 2 (configuration and machine mistakes; 1 when the store cannot be used),
 * `stderr` is exactly `lines`, and nothing looks like a stack frame.
 */
function expectRefusal(run: CliRun, lines: readonly (string | RegExp)[], code = 2) {
  expect(run.code, run.stderr).toBe(code);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(run.stderr).not.toMatch(/Error:|node:internal/);
  const printed = run.stderr.trimEnd().split("\n");
  expect(printed).toHaveLength(lines.length);
  lines.forEach((line, index) =>
    typeof line === "string"
      ? expect(printed[index]).toBe(line)
      : expect(printed[index]).toMatch(line),
  );
  expect(run.stdout).not.toContain("listening on");
}

async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

const isRoot = process.getuid?.() === 0;

describe("cursor-gateway serve: mistakes get one clear line", () => {
  it("a port in use names the variable to change", async () => {
    const { port, server } = await occupiedPort();
    try {
      const run = await runCli({
        env: { CURSOR_GATEWAY_PORT: String(port), CURSOR_GATEWAY_DATA_DIR: folders.create() },
      });
      expectRefusal(run, [
        `cursor-gateway: the gateway cannot listen on 127.0.0.1:${port}: the port is already in use (is another gateway running?); set CURSOR_GATEWAY_PORT to a free port`,
      ]);
    } finally {
      server.close();
    }
  });

  it("a proxy port in use names CURSOR_GATEWAY_PROXY_PORT, and nothing stays open", async () => {
    const { port, server } = await occupiedPort();
    try {
      const run = await runCli({
        args: ["proxy"],
        env: {
          CURSOR_GATEWAY_PROXY_PORT: String(port),
          CURSOR_GATEWAY_DATA_DIR: folders.create(),
        },
      });
      expectRefusal(run, [
        `cursor-gateway: the Cursor proxy cannot listen on 127.0.0.1:${port}: the port is already in use (is another gateway running?); set CURSOR_GATEWAY_PROXY_PORT to a free port`,
      ]);
    } finally {
      server.close();
    }
  });

  it("a data folder that cannot be created names the path", async () => {
    const file = join(folders.create(), "not-a-folder");
    writeFileSync(file, "a file where the folder should go\n");
    const below = await runCli({ env: { CURSOR_GATEWAY_DATA_DIR: join(file, "data") } });
    expectRefusal(below, [
      `cursor-gateway: the data folder ${join(file, "data")} cannot be created: a file is in the way; set CURSOR_GATEWAY_DATA_DIR to a folder this user can write`,
    ]);
    const itself = await runCli({ env: { CURSOR_GATEWAY_DATA_DIR: file } });
    expectRefusal(itself, [
      `cursor-gateway: the data folder ${file} is a file, not a folder; set CURSOR_GATEWAY_DATA_DIR to a folder this user can write`,
    ]);
  });

  it("a data folder this user cannot write names the path", async () => {
    const folder = join(folders.create(), "read-only");
    mkdirSync(folder);
    // root may write anywhere: run the gateway as `nobody` on a folder owned by root.
    chmodSync(join(folder, ".."), 0o755);
    chmodSync(folder, isRoot ? 0o755 : 0o555);
    const run = await runCli({
      env: { CURSOR_GATEWAY_DATA_DIR: folder },
      ...(isRoot ? { user: { uid: 65534, gid: 65534 } } : {}),
    });
    chmodSync(folder, 0o755);
    expectRefusal(run, [
      `cursor-gateway: the data folder ${folder} is not writable by this user; set CURSOR_GATEWAY_DATA_DIR to a folder this user can write`,
    ]);
  });

  it("a second gateway on the same data folder is refused; once the first is killed (-9) it starts", async () => {
    const folder = folders.create();
    const first = await startGatewayProcess({ CURSOR_GATEWAY_DATA_DIR: folder });
    const refused = await runCli({ env: { CURSOR_GATEWAY_DATA_DIR: folder } });
    expectRefusal(refused, [
      `cursor-gateway: the data folder ${folder} is in use by another gateway process (its SQLite store serves one process); stop that process or set CURSOR_GATEWAY_DATA_DIR to another folder (several processes share a PostgreSQL store: CURSOR_GATEWAY_DATABASE_URL)`,
    ]);
    // The first one still serves.
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    // The operating system lets go of a dead process's lock: nothing stale to clean up.
    await first.kill();
    const second = await startGatewayProcess({ CURSOR_GATEWAY_DATA_DIR: folder });
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    await second.kill();
  });

  it("a damaged SQLite file names the file and how to go on", async () => {
    const folder = folders.create();
    writeFileSync(join(folder, "gateway.sqlite"), Buffer.alloc(8192, 0x5a));
    const run = await runCli({ env: { CURSOR_GATEWAY_DATA_DIR: folder } });
    expectRefusal(
      run,
      [
        `cursor-gateway: ${join(folder, "gateway.sqlite")} is not a SQLite database or is damaged (SQLITE_NOTADB); move it away (the gateway then creates a new one) or set CURSOR_GATEWAY_DATA_DIR to another folder`,
      ],
      1,
    );
  });

  it("another program's SQLite database is refused and left as it was", async () => {
    const folder = folders.create();
    const path = join(folder, "gateway.sqlite");
    const foreign = new Database(path);
    foreign.exec(
      "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ada');",
    );
    foreign.close();
    const run = await runCli({ env: { CURSOR_GATEWAY_DATA_DIR: folder } });
    expectRefusal(
      run,
      [
        `cursor-gateway: ${path} is not a cursor-gateway database (it has the tables users and no schema_migrations); the gateway does not write into another program's database: move it away or set CURSOR_GATEWAY_DATA_DIR to another folder`,
      ],
      1,
    );
    const reopened = new Database(path, { readonly: true });
    const tables = reopened.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    reopened.close();
    expect(tables).toEqual([{ name: "users" }]);
  });

  it("an invalid log level is a configuration error, not a pino stack trace", async () => {
    const run = await runCli({
      env: { CURSOR_GATEWAY_LOG_LEVEL: "verbose", CURSOR_GATEWAY_DATA_DIR: folders.create() },
    });
    expectRefusal(run, [
      "invalid gateway configuration:",
      '  - CURSOR_GATEWAY_LOG_LEVEL: one of fatal, error, warn, info, debug, trace, silent (got "verbose")',
    ]);
  });

  it("reports every configuration problem at once, never quoting a secret", async () => {
    const run = await runCli({
      env: {
        CURSOR_GATEWAY_HOST: "0.0.0.0",
        CURSOR_GATEWAY_PORT: "80a",
        CURSOR_GATEWAY_PROVIDER: "anthropic",
        CURSOR_GATEWAY_LOG_LEVEL: "loud",
        CURSOR_GATEWAY_LOG_FORMAT: "yaml",
        CURSOR_GATEWAY_CHECKPOINT_SECRET: "short-secret-value",
        CURSOR_GATEWAY_CONTEXT_WINDOW: "12",
        CURSOR_GATEWAY_DATA_DIR: folders.create(),
      },
    });
    expectRefusal(run, [
      "invalid gateway configuration:",
      '  - CURSOR_GATEWAY_PORT: a port number (got "80a")',
      "  - CURSOR_GATEWAY_CHECKPOINT_SECRET: at least 32 characters",
      '  - CURSOR_GATEWAY_CONTEXT_WINDOW: at least 4096 tokens (got "12")',
      '  - CURSOR_GATEWAY_LOG_LEVEL: one of fatal, error, warn, info, debug, trace, silent (got "loud")',
      '  - CURSOR_GATEWAY_LOG_FORMAT: one of pretty, json (got "yaml")',
      "  - CURSOR_GATEWAY_PROVIDER=anthropic needs ANTHROPIC_API_KEY",
      "  - CURSOR_GATEWAY_TOKENS must be set to listen on 0.0.0.0: without tokens the gateway only listens on loopback",
    ]);
    expect(run.stderr).not.toContain("short-secret-value");
  });

  it("CURSOR_GATEWAY_TOKENS: whitespace inside a token, an empty entry and a repeat are refused", async () => {
    const spaced = "token-aaaaaaaaaaaaaaaa token-bbbbbbbbbbbbbbbb";
    const run = await runCli({
      env: {
        CURSOR_GATEWAY_TOKENS: `${spaced},,token-cccccccccccccccc, token-cccccccccccccccc`,
        CURSOR_GATEWAY_DATA_DIR: folders.create(),
      },
    });
    expectRefusal(run, [
      "invalid gateway configuration:",
      "  - CURSOR_GATEWAY_TOKENS: token 1 of 4 contains whitespace; separate tokens with commas, not spaces",
      "  - CURSOR_GATEWAY_TOKENS: token 2 of 4 is empty (separate tokens with commas, nothing in between)",
      "  - CURSOR_GATEWAY_TOKENS: token 4 repeats token 3; each token is one tenant",
    ]);
    expect(run.stderr).not.toContain("token-cccccccccccccccc");
  });

  it("CURSOR_GATEWAY_TOKENS: entries are trimmed and each one is a tenant", async () => {
    const gateway = await startGatewayProcess({
      CURSOR_GATEWAY_PROVIDER: "simulated",
      CURSOR_GATEWAY_TOKENS: " token-one-0123456789 ,token-two-0123456789 ",
      CURSOR_GATEWAY_DATA_DIR: folders.create(),
    });
    try {
      expect(gateway.output()).toContain("2 tenant token(s)");
      for (const token of ["token-one-0123456789", "token-two-0123456789"]) {
        const answer = await fetch(`${gateway.url}/v1/conversations/none`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(answer.status).toBe(404);
      }
      const spaced = await fetch(`${gateway.url}/v1/conversations/none`, {
        headers: { authorization: "Bearer  token-one-0123456789 ,token-two-0123456789" },
      });
      expect(spaced.status).toBe(401);
    } finally {
      await gateway.stop();
    }
  });
});

describe("cursor-gateway serve: logs people can read", () => {
  it("prints one readable line per request, and none for /healthz and /metrics at info", async () => {
    const gateway = await startGatewayProcess({
      CURSOR_GATEWAY_PROVIDER: "simulated",
      CURSOR_GATEWAY_DATA_DIR: folders.create(),
      CURSOR_GATEWAY_LOG_LEVEL: "info",
      CURSOR_GATEWAY_LOG_FORMAT: "pretty",
    });
    try {
      for (const path of ["/healthz", "/metrics", "/healthz"]) await fetch(`${gateway.url}${path}`);
      await fetch(`${gateway.url}/v1/conversations/nothing-here`);
      const run = await fetch(`${gateway.url}/v1/runs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          conversationId: "logs",
          runId: "r-1",
          mode: "agent",
          action: { type: "user-message", message: { id: "m-1", text: "Hello" } },
        }),
      });
      await run.text();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const requests = gateway
        .output()
        .split("\n")
        .filter((line) => / INFO {2}(GET|POST) /.test(line));
      expect(requests).toEqual([
        expect.stringMatching(
          /^\d\d:\d\d:\d\d\.\d{3} INFO {2}GET \/v1\/conversations\/nothing-here 404 [\d.]+ ms$/,
        ),
        expect.stringMatching(
          /^\d\d:\d\d:\d\d\.\d{3} INFO {2}POST \/v1\/runs 200 [\d.]+ ms run logs\/r-1 completed$/,
        ),
      ]);
      expect(gateway.output()).not.toContain("/healthz");
      expect(gateway.output()).not.toContain('{"level"');
    } finally {
      await gateway.stop();
    }
  });

  it("writes JSON lines when not on a terminal, and /healthz at debug level", async () => {
    const gateway = await startGatewayProcess({
      CURSOR_GATEWAY_PROVIDER: "simulated",
      CURSOR_GATEWAY_DATA_DIR: folders.create(),
      CURSOR_GATEWAY_LOG_LEVEL: "debug",
    });
    try {
      await fetch(`${gateway.url}/healthz`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const logs = gateway
        .output()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(logs.length).toBeGreaterThan(0);
      expect(logs).toContainEqual(
        expect.objectContaining({
          level: 20,
          msg: "request",
          req: { method: "GET", url: "/healthz" },
          res: { statusCode: 200 },
        }),
      );
    } finally {
      await gateway.stop();
    }
  });
});
