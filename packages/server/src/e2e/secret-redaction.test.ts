import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { FakeReply } from "@cursor/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { startGateway } from "../start-gateway.js";
import type { RunningGateway } from "../start-gateway.js";
import { gatewayEnvironment, temporaryFolders, wireApis } from "./e2e-environment.js";
import { userTurn } from "./e2e-helpers.js";
import { fastRetry } from "./in-process-gateway.js";
import type { WireApi } from "./provider-bodies.js";
import { startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";

const folders = temporaryFolders("redaction");
afterAll(() => folders.removeAll());

/**
 * An operator key with characters that URL-encoding and JSON escaping change, so each echoed
 * form differs from the plain one (OpenAI-compatible servers accept any key).
 */
const operatorKey = "sk-op/Key+With=Special~Chars.0123456789abcdef";

const base64At = (prefix: string) => Buffer.from(`${prefix}${operatorKey}`).toString("base64");
/** What an echoing upstream may put in its error text: every form a key travels in. */
const echoes = {
  plain: operatorKey,
  base64: base64At(""),
  // Basic auth (`user:key`): the key at another byte alignment inside the encoded text.
  basicAuth: base64At("gateway:"),
  base64Shifted: base64At("x"),
  base64url: Buffer.from(operatorKey).toString("base64url"),
  urlEncoded: encodeURIComponent(operatorKey),
  urlEncodedLower: encodeURIComponent(operatorKey).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
};

/** Distinctive pieces of every form: none may appear in anything the gateway lets out. */
const leakMarkers = [
  operatorKey,
  "Key+With=Special",
  encodeURIComponent(operatorKey),
  encodeURIComponent(operatorKey).toLowerCase(),
  Buffer.from(operatorKey).toString("base64").slice(4, 40),
  Buffer.from(`gateway:${operatorKey}`).toString("base64").slice(16, 52),
  Buffer.from(`x${operatorKey}`).toString("base64").slice(4, 40),
  Buffer.from(operatorKey).toString("base64url").slice(4, 40),
];

function leaks(text: string): string[] {
  return leakMarkers.filter((marker) => text.includes(marker));
}

const echoText = `upstream says: key=${echoes.plain} auth=Basic ${echoes.basicAuth} b64=${echoes.base64} shifted=${echoes.base64Shifted} url=${echoes.base64url} q=${echoes.urlEncoded}&lower=${echoes.urlEncodedLower}`;

/** A stream that fails with a retryable server error quoting the key, in each API's shape. */
function streamError(api: WireApi): FakeReply {
  switch (api) {
    case "openai-responses":
      return {
        type: "stream",
        events: [
          {
            type: "error",
            sequence_number: 0,
            code: "server_error",
            message: echoText,
            param: null,
          },
        ],
      };
    case "openai-chat":
      return {
        type: "stream",
        events: [{ error: { message: echoText, type: "server_error", code: "server_error" } }],
      };
    case "anthropic":
      return {
        type: "stream",
        events: [{ type: "error", error: { type: "overloaded_error", message: echoText } }],
      };
    default: {
      const exhaustive: never = api;
      throw new Error(`unknown api ${String(exhaustive)}`);
    }
  }
}

/** `POST /v1/runs` as raw bytes: what a client receives. */
async function runRaw(url: string, body: unknown): Promise<string> {
  const response = await fetch(`${url}/v1/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return response.text();
}

describe.each(wireApis)("no secret leaves the gateway (%s)", (api) => {
  let provider: ScriptedProvider;
  let gateway: RunningGateway;
  let dataDir: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    provider = await startScriptedProvider();
    dataDir = folders.create();
    const keyVariable = api === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
    const config = loadConfig({
      CURSOR_GATEWAY_HOST: "127.0.0.1",
      CURSOR_GATEWAY_PORT: "0",
      ...gatewayEnvironment({ api, fake: provider.fake, dataDir }),
      [keyVariable]: operatorKey,
    });
    gateway = await startGateway({
      config,
      retry: { ...fastRetry, maxAttempts: 5 },
      logger: {
        level: "info",
        stream: new Writable({
          write(chunk: Buffer, _encoding, done) {
            logLines.push(chunk.toString());
            done();
          },
        }),
      },
    });
  });

  afterAll(async () => {
    await gateway.close();
    await provider.fake.close();
  });

  it("429, 500 and 503 bodies and a stream error echoing the key: retry events, run.ended, logs", async () => {
    provider.fake.enqueue(
      { type: "error", status: 429, message: echoText },
      { type: "error", status: 500, message: echoText },
      { type: "error", status: 503, message: echoText },
      streamError(api),
    );
    provider.reply = { type: "text", text: "Recovered.", chunks: 1 };
    const sse = await runRaw(gateway.url, userTurn({ conversationId: "retries", turn: 1 }));
    expect(sse.match(/event: retry/g)).toHaveLength(4);
    expect(sse).toContain("[redacted]");
    expect(sse).toContain("Recovered.");
    expect(leaks(sse)).toEqual([]);

    // Out of attempts: the failure itself (run.ended, the stored run, the log line).
    provider.fake.enqueue(...Array.from({ length: 5 }, () => streamError(api)));
    const failed = await runRaw(gateway.url, userTurn({ conversationId: "retries", turn: 2 }));
    expect(failed).toContain('"reason":"failed"');
    expect(leaks(failed)).toEqual([]);
    expect(logLines.join("")).toContain("run failed");
    expect(leaks(logLines.join(""))).toEqual([]);
  });

  it("model output quoting the key (split across deltas) never reaches events, history or the store", async () => {
    provider.reply = {
      type: "text",
      text: `Your key is ${operatorKey} and ${echoes.base64}.`,
      chunks: 9,
    };
    const sse = await runRaw(gateway.url, userTurn({ conversationId: "echo", turn: 1 }));
    const text = [...sse.matchAll(/event: text\.delta\ndata: (.*)/g)]
      .map((match) => (JSON.parse(match[1]!) as { text: string }).text)
      .join("");
    expect(text).toBe("Your key is [redacted] and [redacted].");
    expect(leaks(sse)).toEqual([]);
    const history = await (await fetch(`${gateway.url}/v1/conversations/echo/history`)).text();
    expect(history).toContain("[redacted]");
    expect(leaks(history)).toEqual([]);
  });

  it("provider-request records do not show a key a client pasted into a message", async () => {
    provider.reply = { type: "text", text: "Noted." };
    await runRaw(
      gateway.url,
      userTurn({ conversationId: "pasted", turn: 1, text: `is ${operatorKey} my key?` }),
    );
    const records = await (
      await fetch(`${gateway.url}/v1/conversations/pasted/provider-requests`)
    ).text();
    expect(records).toContain("[redacted]");
    expect(leaks(records)).toEqual([]);
  });

  it("the store holds no form of the key (after everything above)", async () => {
    await gateway.close();
    const files = readdirSync(dataDir).filter((name) => name.startsWith("gateway.sqlite"));
    const bytes = files
      .map((name) => readFileSync(join(dataDir, name)).toString("latin1"))
      .join("");
    expect(bytes.length).toBeGreaterThan(0);
    // The pasted message is the client's own content (stored as sent); everything else is clean.
    expect(leaks(bytes.split(`is ${operatorKey} my key?`).join(""))).toEqual([]);
  });
});
