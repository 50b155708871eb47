import { spawn } from "node:child_process";
import type { ChildProcessByStdio } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo, Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { startFakeProvider } from "@cursor/testkit";
import type { FakeProvider } from "@cursor/testkit";
import { ScriptedIdeClient } from "@cursor/wire/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayCliPath } from "../../e2e/gateway-process.js";
import { http1Fetch } from "../../e2e/wire-fetch.js";
import { loadOrCreateProxyCa } from "../proxy-ca.js";
import { startCursorStandIn } from "./cursor-stand-in.js";
import type { RunningStandIn } from "./cursor-stand-in.js";
import { keepAliveAgent, tlsThroughProxy } from "./proxy-client.js";
import { cursorClient, ideHeaders } from "./test-clients.js";

/**
 * The real `cursor-gateway proxy` process, as a user starts it: relaying to a stand-in for
 * Cursor's servers whose certificate it trusts through NODE_EXTRA_CA_CERTS, the gateway in the
 * same process, and `cursor-gateway doctor` run against it.
 */

const goodKey = "sk-proxy-e2e-good-0123456789";

const inheritedPrefixes = ["CURSOR_GATEWAY_", "OPENAI_", "ANTHROPIC_", "NODE_EXTRA_CA_CERTS"];
function scrubbedEnvironment(): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || inheritedPrefixes.some((prefix) => name.startsWith(prefix)))
      continue;
    environment[name] = value;
  }
  return environment;
}

interface CliRun {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  output(): string;
  readonly exited: Promise<number | null>;
}

function runCli(args: string[], environment: Record<string, string>): CliRun {
  const child = spawn(process.execPath, [gatewayCliPath, ...args], {
    env: { ...scrubbedEnvironment(), ...environment },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  return { child, output: () => output, exited };
}

async function readyLine(run: CliRun): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const line = run
      .output()
      .split("\n")
      .find((candidate) => candidate.startsWith("cursor-gateway proxy ready: "));
    if (line !== undefined) return line;
    if (run.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`cursor-gateway proxy did not get ready:\n${run.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let folder: string;
let standIn: RunningStandIn;
let standInCaPath: string;
let modelsServer: Server;
let openaiBaseURL: string;
let fakeProvider: FakeProvider;
const running: CliRun[] = [];

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "proxy-command-"));
  const standInCa = await loadOrCreateProxyCa({ folder: join(folder, "stand-in-ca") });
  standInCaPath = standInCa.certPath;
  const cert = await standInCa.issue({ hosts: ["127.0.0.1"] });
  standIn = await startCursorStandIn({ cert: cert.certPem, key: cert.keyPem });
  fakeProvider = await startFakeProvider({
    defaultReply: { type: "text", text: "Hello from your key." },
  });
  // The provider: its model list for doctor's key check (OpenAI's shape), everything else (the
  // runs) answered by the testkit's fake provider behind it.
  modelsServer = createServer((req, res) => {
    if (req.url !== "/v1/models") {
      const upstream = httpRequest(
        `${fakeProvider.url}${req.url ?? "/"}`,
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
      return;
    }
    const ok = req.headers.authorization === `Bearer ${goodKey}`;
    res.writeHead(ok ? 200 : 401, { "content-type": "application/json" });
    res.end(
      JSON.stringify(
        ok
          ? { object: "list", data: [{ id: "gpt-5", object: "model", created: 0, owned_by: "o" }] }
          : { error: { message: "bad key" } },
      ),
    );
  });
  await new Promise<void>((resolve) => modelsServer.listen(0, "127.0.0.1", resolve));
  openaiBaseURL = `http://127.0.0.1:${(modelsServer.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  for (const run of running) if (run.child.exitCode === null) run.child.kill("SIGKILL");
  await standIn.close();
  await new Promise((resolve) => modelsServer.close(resolve));
  await fakeProvider.close();
  rmSync(folder, { recursive: true, force: true });
});

function startProxyProcess(dataDir: string): CliRun {
  const run = runCli(["proxy"], {
    CURSOR_GATEWAY_DATA_DIR: dataDir,
    CURSOR_GATEWAY_PORT: "0",
    CURSOR_GATEWAY_PROXY_PORT: "0",
    CURSOR_GATEWAY_LOG_LEVEL: "warn",
    CURSOR_GATEWAY_CURSOR_UPSTREAM: standIn.origin,
    CURSOR_GATEWAY_PROVIDER: "openai-responses",
    CURSOR_GATEWAY_MODEL: "gpt-5",
    OPENAI_API_KEY: goodKey,
    OPENAI_BASE_URL: openaiBaseURL,
    NODE_EXTRA_CA_CERTS: standInCaPath,
  });
  running.push(run);
  return run;
}

describe("cursor-gateway proxy (the process)", () => {
  it("starts gateway and proxy, logs one ready line, relays, routes BYOK runs to its gateway, passes doctor, stops on SIGTERM, reuses its CA", async () => {
    const dataDir = join(folder, "data");
    const proxyRun = startProxyProcess(dataDir);
    const ready = await readyLine(proxyRun);
    const caPath = join(dataDir, "proxy-ca", "ca.crt");
    const match =
      /^cursor-gateway proxy ready: (http:\/\/127\.0\.0\.1:(\d+)) \(CA (\S+), created now: trust it, see cursor-gateway setup\), gateway (http:\/\/127\.0\.0\.1:\d+), Cursor upstream (\S+), BYOK models byok\/gpt-5$/.exec(
        ready,
      );
    expect(match, ready).not.toBeNull();
    const [, proxyURL, proxyPort, readyCaPath, gatewayURL, upstream] = match!;
    expect(readyCaPath).toBe(caPath);
    expect(upstream).toBe(standIn.origin);
    expect(
      proxyRun
        .output()
        .split("\n")
        .filter((line) => line.includes("ready")),
    ).toHaveLength(1);
    expect(statSync(join(dataDir, "proxy-ca", "ca.key")).mode & 0o777).toBe(0o600);
    const caPem = readFileSync(caPath, "utf8");

    const client = await cursorClient({
      protocol: "h1",
      proxyPort: Number(proxyPort),
      ca: [caPem],
    });
    try {
      // Relayed to the stand-in, whose certificate the process trusts via NODE_EXTRA_CA_CERTS.
      const relayed = await client.request({
        path: "/aiserver.v1.AiService/GetServerConfig",
        headers: { ...ideHeaders, "content-type": "application/proto" },
        body: new Uint8Array([8, 1]),
      });
      expect(relayed.status, relayed.body.toString()).toBe(200);
      expect(JSON.parse(relayed.body.toString("utf8"))).toMatchObject({
        server: "cursor",
        path: "/aiserver.v1.AiService/GetServerConfig",
        bodyLength: 2,
      });

      // A run for the configured BYOK model goes to the gateway in the process, not to Cursor,
      // and streams back through the proxy: text, checkpoints (their blobs over KV), turn_ended.
      const agent = keepAliveAgent(() =>
        tlsThroughProxy({
          proxyPort: Number(proxyPort),
          host: "api2.cursor.sh",
          ca: [caPem],
          alpn: ["http/1.1"],
        }),
      );
      const transport = http1Fetch({ agent });
      const ide = new ScriptedIdeClient({
        fetch: transport.fetch,
        baseUrl: "https://api2.cursor.sh",
        authorization: ideHeaders.authorization,
      });
      try {
        const turn = await ide.runTurn({
          conversationId: "c-byok",
          text: "hello",
          modelId: "byok/gpt-5",
          requestId: "e2e-byok",
        });
        expect(turn.end, JSON.stringify(turn.end)).toEqual({});
        expect(turn.appendErrors).toEqual([]);
        expect(turn.text).toBe("Hello from your key.");
        expect(turn.checkpoints.length).toBeGreaterThan(0);
        expect(turn.kv.setBlobIds.length).toBeGreaterThan(0);
        expect(turn.sequence.slice(-2)).toEqual(["turnEnded", "end"]);
      } finally {
        transport.close();
      }
      expect(standIn.server.requests.some((request) => request.body.includes("e2e-byok"))).toBe(
        false,
      );
      // The provider got the run with the configured key, never the IDE's Cursor session.
      const run = fakeProvider.requests.at(-1)!;
      expect(JSON.stringify(run)).not.toContain(ideHeaders.authorization.slice("Bearer ".length));
    } finally {
      client.close();
    }

    const settingsPath = join(folder, "settings.json");
    writeFileSync(
      settingsPath,
      `{\n  // mine\n  "http.proxy": "${proxyURL}",\n  "http.proxySupport": "on",\n  "cursor.general.disableHttp2": true,\n}\n`,
    );
    const trusted = runCli(["doctor", "--proxy", proxyURL!, "--settings", settingsPath], {
      NODE_EXTRA_CA_CERTS: caPath,
    });
    expect(await trusted.exited, trusted.output()).toBe(0);
    const lines = trusted.output();
    expect(lines).toMatch(/^ok {4}proxy +cursor-gateway proxy answers at http/m);
    expect(lines).toMatch(
      /^ok {4}interception +api2\.cursor\.sh is served with a certificate from the proxy CA$/m,
    );
    expect(lines).toContain(`Node trusts the proxy CA (NODE_EXTRA_CA_CERTS=${caPath})`);
    expect(lines).toContain(`the gateway answers at ${gatewayURL}`);
    expect(lines).toMatch(/^ok {4}BYOK models +byok\/gpt-5 \(openai-responses\)$/m);
    expect(lines).toContain(`openai-responses: ${openaiBaseURL} accepted the key (model gpt-5)`);
    expect(lines).toContain(`points Cursor at ${proxyURL}`);
    expect(lines).toContain("doctor: 7 ok, 0 warnings, 0 failed");
    expect(lines).not.toContain(goodKey);

    const untrusted = runCli(["doctor", "--proxy", proxyURL!, "--settings", settingsPath], {});
    expect(await untrusted.exited).toBe(1);
    expect(untrusted.output()).toMatch(/^FAIL {2}Node trust +Node does not trust the proxy CA \(/m);
    expect(untrusted.output()).toContain(
      `fix: NODE_EXTRA_CA_CERTS is not set here: set NODE_EXTRA_CA_CERTS=${caPath} where Cursor starts`,
    );

    proxyRun.child.kill("SIGTERM");
    expect(await proxyRun.exited).toBe(0);
    const down = runCli(["doctor", "--proxy", proxyURL!, "--settings", settingsPath], {});
    expect(await down.exited).toBe(1);
    expect(down.output()).toMatch(/^FAIL {2}proxy +nothing answers at http:\/\/127\.0\.0\.1:\d+ /m);
    expect(down.output()).toContain("fix: start it: cursor-gateway proxy");

    const again = startProxyProcess(dataDir);
    const secondReady = await readyLine(again);
    expect(secondReady).toContain(`(CA ${caPath}), gateway`);
    expect(readFileSync(caPath, "utf8")).toBe(caPem);
    again.child.kill("SIGTERM");
    expect(await again.exited).toBe(0);
  });

  it("refuses a bad upstream setting before starting anything", async () => {
    const run = runCli(["proxy"], {
      CURSOR_GATEWAY_DATA_DIR: join(folder, "refused"),
      CURSOR_GATEWAY_PORT: "0",
      CURSOR_GATEWAY_CURSOR_UPSTREAM: "http://127.0.0.1:9443/path",
    });
    expect(await run.exited).toBe(2);
    expect(run.output()).toContain("CURSOR_GATEWAY_CURSOR_UPSTREAM: an https:// origin");
  });
});
