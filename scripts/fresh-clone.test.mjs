// The README's lines on a fresh clone, as a newcomer runs them: the set-up line installs without a
// warning and builds the CLI; the main-job line serves and stops, freeing its port, when its
// command gets SIGTERM, on a terminal's Ctrl-C (SIGINT to the whole job) and when the terminal
// closes (SIGHUP); every `pnpm exec cursor-gateway …` line works from the repository root. A
// README line this test does not know fails it. (A SIGINT sent to the npx process alone reaches
// nothing: npm, pnpm and sh all leave SIGINT to the terminal's process group, for every child.)
//
// Cost is bounded: `git clone` of this repository (local, so no network), the install from the
// pnpm store (offline), and turbo's cache of this checkout for the build (TURBO_CACHE_DIR: the
// same sources hash to the same outputs, so a clone's build restores them instead of compiling).
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readmeCommandLines } from "./readme-lines.mjs";

const root = resolve(import.meta.dirname, "..");
const pnpmVersion = JSON.parse(
  execFileSync("git", ["show", "HEAD:package.json"], { cwd: root, encoding: "utf8" }),
).packageManager.split("@")[1];
const npxPnpm = `npx --yes pnpm@${pnpmVersion}`;
const posix = process.platform !== "win32";

let clone;
let home;
const started = new Set();
const timings = {};

/** This process's environment without what a package manager or a gateway variable adds. */
function cleanEnvironment(extra = {}) {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(npm_|pnpm_|PNPM_|CURSOR_GATEWAY_|OPENAI_|ANTHROPIC_|VITEST|TURBO_)/.test(name)) continue;
    if (name === "INIT_CWD" || name === "NODE_OPTIONS") continue;
    env[name] = value;
  }
  // Drop this checkout's node_modules/.bin folders that pnpm put on PATH: the clone has its own.
  // A pnpm installed elsewhere (CI's, npx's cache) stays: the README's `pnpm …` lines need one.
  env.PATH = (process.env.PATH ?? "")
    .split(":")
    .filter((entry) => !(entry.startsWith(`${root}/`) && entry.includes("node_modules/.bin")))
    .join(":");
  const commonDir = execFileSync(
    "git",
    ["rev-parse", "--path-format=absolute", "--git-common-dir"],
    { cwd: root, encoding: "utf8" },
  ).trim();
  return {
    ...env,
    TURBO_CACHE_DIR: join(dirname(commonDir), ".turbo", "cache"),
    TURBO_TELEMETRY_DISABLED: "1",
    ...extra,
  };
}

/**
 * `command` as the README says to run it here: without a pnpm on `PATH`, `npx --yes pnpm@…` is
 * written for `pnpm`.
 */
function asWritten(command, env) {
  const found = spawnSync("sh", ["-c", "command -v pnpm"], { env, stdio: "ignore" });
  return found.status === 0 ? command : command.replace(/(^|\s)pnpm(?=\s)/g, `$1${npxPnpm}`);
}

/** Runs `command` with `sh -c` in the clone; resolves its exit code, output and duration. */
function run(command, { env = cleanEnvironment(), timeoutMs = 300_000 } = {}) {
  const begin = Date.now();
  const child = spawn("sh", ["-c", asWritten(command, env)], {
    cwd: clone,
    env,
    detached: posix,
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const timer = setTimeout(() => killGroup(child.pid, "SIGKILL"), timeoutMs);
  return new Promise((resolvePromise) => {
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, output, ms: Date.now() - begin });
    });
  });
}

/** Starts a long-running line; resolves once its output matches `ready`. */
async function start(command, { env, ready, timeoutMs = 300_000 }) {
  const child = spawn("sh", ["-c", asWritten(command, env)], {
    cwd: clone,
    env,
    detached: posix,
  });
  started.add(child.pid);
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  // "close", not "exit": it comes once the job is gone and its output has all been read.
  const exited = new Promise((resolvePromise) =>
    child.once("close", (code, signal) => resolvePromise({ code, signal })),
  );
  await new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in time: ${output}`)), timeoutMs);
    const check = () => {
      if (ready.test(output)) {
        clearTimeout(timer);
        resolvePromise();
      }
    };
    child.stdout.on("data", check);
    child.stderr.on("data", check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`exited before it was ready: ${output}`));
    });
  });
  return { shell: child.pid, output: () => output, exited };
}

function killGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

/** Whether any process of the group is still there. */
function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pids whose parent is `pid`. */
function childrenOf(pid) {
  return execFileSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([, ppid]) => ppid === pid)
    .map(([child]) => child);
}

async function freePort() {
  const server = createServer();
  await new Promise((resolvePromise) => server.listen(0, "127.0.0.1", resolvePromise));
  const { port } = server.address();
  await new Promise((resolvePromise) => server.close(resolvePromise));
  return port;
}

function portIsFree(port) {
  return new Promise((resolvePromise) => {
    const server = createServer();
    server.once("error", () => resolvePromise(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolvePromise(true)));
  });
}

async function waitFor(test, { timeoutMs = 20_000, what }) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await test()) return;
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const readme = () => readmeCommandLines(join(clone, "README.md"));
const commandOf = (pattern) => {
  const found = readme().find(({ command }) => pattern.test(command));
  if (found === undefined) throw new Error(`the README has no line matching ${pattern}`);
  return found.command;
};
const noStackTrace = (output) => expect(output).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
const noInstallWarnings = (output) => {
  expect(output).not.toMatch(/WARN/);
  expect(output).not.toMatch(/Failed to create bin/);
  expect(output).not.toMatch(/Ignored build scripts/);
};

beforeAll(() => {
  clone = mkdtempSync(join(tmpdir(), "cursor-fresh-clone-"));
  home = mkdtempSync(join(tmpdir(), "cursor-fresh-home-"));
  const begin = Date.now();
  execFileSync("git", ["clone", "--quiet", root, clone]);
  // Uncommitted work is tested as it would be committed: changed and new files over the clone.
  const changed = execFileSync("git", ["ls-files", "-z", "-m", "-o", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\0")
    .filter(Boolean);
  for (const file of changed) {
    if (!existsSync(join(root, file))) continue;
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    cpSync(join(root, file), join(clone, file));
  }
  const deleted = execFileSync("git", ["ls-files", "-z", "-d"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter(Boolean);
  for (const file of deleted) rmSync(join(clone, file), { force: true });
  timings.clone = Date.now() - begin;
}, 120_000);

afterAll(() => {
  for (const pgid of started) killGroup(pgid, "SIGKILL");
  console.log(
    `fresh clone: ${Object.entries(timings)
      .map(([step, ms]) => `${step} ${(ms / 1000).toFixed(1)} s`)
      .join(", ")}`,
  );
  if (clone !== undefined) rmSync(clone, { recursive: true, force: true });
  if (home !== undefined) rmSync(home, { recursive: true, force: true });
});

describe.runIf(posix)("a fresh clone, as the README says", () => {
  it("the set-up line installs without a warning and builds the CLI", async () => {
    const setUp = commandOf(new RegExp(`^${npxPnpm.replaceAll(".", "\\.")} install$`));
    const result = await run(setUp);
    timings.install = result.ms;
    expect(result.code, result.output).toBe(0);
    noInstallWarnings(result.output);
    expect(existsSync(join(clone, "node_modules/.bin/cursor-gateway"))).toBe(true);
    expect(existsSync(join(clone, "packages/server/dist/cli.js"))).toBe(true);
    const help = await run("pnpm exec cursor-gateway help", {
      env: cleanEnvironment({ HOME: home }),
    });
    expect(help.code, help.output).toBe(0);
    expect(help.output).toMatch(/^cursor-gateway <command>/);
  }, 600_000);

  const mainJob = () => commandOf(new RegExp(`^${npxPnpm.replaceAll(".", "\\.")} start$`));

  /** The main-job line on a free port, then `stop(line)` with the group's pids in hand. */
  async function mainJobStopsOn(stop) {
    const port = await freePort();
    const begin = Date.now();
    const job = await start(mainJob(), {
      env: cleanEnvironment({ CURSOR_GATEWAY_PORT: String(port) }),
      ready: /cursor-gateway listening on http:\/\/127\.0\.0\.1:\d+/,
    });
    const readyMs = Date.now() - begin;
    expect(job.output()).toContain("provider simulated, model simulated-model");
    expect(await portIsFree(port)).toBe(false);
    // What the line started: the shell runs it, so its child is the npx process.
    const [launched] = childrenOf(job.shell);
    expect(launched).toBeGreaterThan(0);
    stop({ launched, group: job.shell });
    await waitFor(() => portIsFree(port), { what: `port ${port} to be free` });
    await waitFor(() => !groupAlive(job.shell), { what: "every process of the job to exit" });
    expect(job.output()).toMatch(/cursor-gateway: .*finishing open runs/);
    noStackTrace(job.output());
    return { readyMs, output: job.output(), port };
  }

  it("the main-job line serves the README's request, and SIGTERM to it frees the port", async () => {
    const port = await freePort();
    const job = await start(mainJob(), {
      env: cleanEnvironment({ CURSOR_GATEWAY_PORT: String(port) }),
      ready: /cursor-gateway listening on/,
    });
    // The README's first request, sent as written (on the test's port).
    const curl = commandOf(/^curl -N http:\/\/127\.0\.0\.1:8787\/v1\/runs/);
    const body = JSON.parse(/-d '([\s\S]*)'/.exec(curl)[1]);
    const answer = await fetch(`http://127.0.0.1:${port}/v1/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toMatch(
      /event: tool\.call\ndata: \{"callId":"call_1","name":"grep"/,
    );
    const [launched] = childrenOf(job.shell);
    process.kill(launched, "SIGTERM");
    await waitFor(() => portIsFree(port), { what: `port ${port} to be free` });
    await waitFor(() => !groupAlive(job.shell), { what: "every process of the job to exit" });
    noStackTrace(job.output());
  }, 600_000);

  it("closing the terminal (SIGHUP to the whole job) stops it cleanly", async () => {
    const { readyMs, output } = await mainJobStopsOn(({ group }) => process.kill(-group, "SIGHUP"));
    timings["main job ready"] = readyMs;
    expect(output).toContain("cursor-gateway: SIGHUP, finishing open runs");
  }, 600_000);

  it("Ctrl-C in a terminal (SIGINT to the whole job) stops it cleanly", async () => {
    const { output } = await mainJobStopsOn(({ group }) => process.kill(-group, "SIGINT"));
    expect(output).toContain("cursor-gateway: SIGINT, finishing open runs");
  }, 600_000);

  it("every other README line works from the repository root", async () => {
    const begin = Date.now();
    // Each line of the README is run here, or named with the reason it is not.
    const notRunHere = new Map([
      [`${npxPnpm} install`, "the set-up line, run above"],
      [`${npxPnpm} start`, "the main-job line, run above"],
      [`${npxPnpm} test`, "the command that runs this test"],
      [
        "pnpm exec cursor-gateway setup --apply --trust",
        "changes this machine's trust store (setup-command tests cover --apply on a scratch settings file)",
      ],
      [
        "pnpm exec cursor-gateway setup --undo --trust",
        "changes this machine's trust store (setup-command tests cover --undo)",
      ],
    ]);
    const ran = [];
    let exported = {};
    const gatewayPort = await freePort();
    const proxyPort = await freePort();
    // The README's `~` is a scratch home: its data folder and Cursor settings stay in the test
    // (a package manager's own lines keep the real one: its store and caches are there).
    const environment = (command = "") =>
      cleanEnvironment({
        ...(command.startsWith(npxPnpm) ? {} : { HOME: home }),
        CURSOR_GATEWAY_PORT: String(gatewayPort),
        CURSOR_GATEWAY_PROXY_PORT: String(proxyPort),
        ...exported,
      });
    let proxy;
    for (const { line, command } of readme()) {
      const where = `README.md line ${line}: ${command.split("\n")[0]}`;
      if (notRunHere.has(command)) continue;
      if (command.startsWith("curl ")) {
        // Sent by the main-job test above and, every one of them, by the server's
        // readme-walkthrough end-to-end test.
        continue;
      }
      const exportLine = /^export (\w+)=(\S+)$/.exec(command);
      if (exportLine !== null) {
        exported = { ...exported, [exportLine[1]]: exportLine[2].replace(/^~/, home) };
        ran.push(command);
        continue;
      }
      if (/(^|\s)pnpm start$/.test(command)) {
        const job = await start(command, {
          env: environment(),
          ready: /cursor-gateway listening on/,
        });
        const provider = /CURSOR_GATEWAY_PROVIDER=(\S+)/.exec(command)[1];
        expect(job.output(), where).toContain(`provider ${provider}`);
        process.kill(childrenOf(job.shell)[0], "SIGTERM");
        await waitFor(() => portIsFree(gatewayPort), { what: `${where} to free its port` });
        await waitFor(() => !groupAlive(job.shell), { what: `${where} to exit` });
        ran.push(command);
        continue;
      }
      if (command === "node --max-semi-space-size=64 packages/server/dist/cli.js serve") {
        const job = await start(command, {
          env: environment(),
          ready: /cursor-gateway listening on/,
        });
        // Under a supervisor the gateway is the process that gets the signal.
        process.kill(childrenOf(job.shell)[0], "SIGTERM");
        await waitFor(() => portIsFree(gatewayPort), { what: `${where} to free its port` });
        // The port is freed before the process has exited and its last line has been read.
        await job.exited;
        expect(job.output()).toContain("cursor-gateway: SIGTERM, finishing open runs");
        ran.push(command);
        continue;
      }
      if (/pnpm exec cursor-gateway proxy$/.test(command)) {
        proxy = await start(command, {
          env: environment(),
          ready: /cursor-gateway proxy ready: http:\/\/127\.0\.0\.1:\d+/,
        });
        expect(proxy.output(), where).toContain(join(home, ".cursor-gateway", "proxy-ca"));
        ran.push(command);
        continue;
      }
      if (
        command.startsWith(`${npxPnpm} install`) ||
        command.startsWith("pnpm exec cursor-gateway ")
      ) {
        const result = await run(command, { env: environment(command) });
        noStackTrace(result.output);
        if (command.startsWith(npxPnpm)) noInstallWarnings(result.output);
        if (command.endsWith("doctor")) {
          // Cursor is not set up on this machine: doctor says what to fix (exit 1), it does not crash.
          expect([0, 1], `${where}\n${result.output}`).toContain(result.code);
          expect(result.output).toMatch(/proxy/i);
        } else {
          expect(result.code, `${where}\n${result.output}`).toBe(0);
        }
        ran.push(command);
        continue;
      }
      throw new Error(
        `${where}: a README line the fresh-clone test does not know; run it here or say why not`,
      );
    }
    expect(proxy, "the README's proxy line").toBeDefined();
    process.kill(childrenOf(proxy.shell)[0], "SIGTERM");
    await waitFor(async () => (await portIsFree(proxyPort)) && (await portIsFree(gatewayPort)), {
      what: "the proxy and its gateway to free their ports",
    });
    noStackTrace(proxy.output());
    expect(ran.length).toBeGreaterThanOrEqual(8);
    timings["other lines"] = Date.now() - begin;
  }, 900_000);
});
