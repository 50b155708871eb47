import { wireRoutes } from "@cursor/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scriptedIde, startWireGateway, wireProtocols } from "./cursor-wire-harness.js";
import type { WireGateway } from "./cursor-wire-harness.js";
import { temporaryFolders } from "./e2e-environment.js";
import { killAllGatewayProcesses } from "./gateway-process.js";
import { startInProcessGateway } from "./in-process-gateway.js";
import { startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";

/**
 * The Cursor wire shares the JSON front door's redaction path: an upstream that echoes the
 * operator's key in its errors and in model text leaks none of it to the IDE (HTTP/1.1 or h2c),
 * the history, the store or the logs.
 */

const folders = temporaryFolders("cursor-wire-redaction");
/** With characters URL-encoding changes, so each echoed form differs from the plain one. */
const operatorKey = "sk-wire/Key+With=Special~Chars.0123456789abcdef";
const forms = [
  operatorKey,
  Buffer.from(operatorKey).toString("base64"),
  Buffer.from(operatorKey).toString("base64url"),
  encodeURIComponent(operatorKey),
];
const markers = [
  operatorKey,
  "Key+With=Special",
  encodeURIComponent(operatorKey),
  Buffer.from(operatorKey).toString("base64").slice(4, 40),
  Buffer.from(operatorKey).toString("base64url").slice(4, 40),
];
const leaks = (text: string) => markers.filter((marker) => text.includes(marker));
const echoText = `upstream says: ${forms.join(" | ")}`;

let provider: ScriptedProvider;
let gateway: WireGateway;

beforeAll(async () => {
  provider = await startScriptedProvider();
  gateway = await startWireGateway({
    provider,
    dataDir: folders.create(),
    extra: { OPENAI_API_KEY: operatorKey, CURSOR_GATEWAY_LOG_LEVEL: "debug" },
  });
});
afterAll(async () => {
  await gateway.stop();
  await killAllGatewayProcesses();
  await provider.fake.close();
  folders.removeAll();
});

const asText = (value: unknown) =>
  JSON.stringify(value, (_key, item: unknown) =>
    typeof item === "bigint"
      ? item.toString()
      : item instanceof Uint8Array
        ? Buffer.from(item).toString("latin1")
        : item,
  );

describe.each(wireProtocols)("the Cursor wire over %s lets no form of the key out", (protocol) => {
  it("provider errors and model text that echo the key: IDE frames, history, store, logs", async () => {
    const { ide, transport } = scriptedIde({ url: gateway.url, protocol });
    const conversationId = `echo-${protocol}`;
    try {
      // What an earlier run left unused (its last attempts) is not this turn's.
      provider.fake.reset();
      provider.fake.enqueue(
        { type: "error", status: 500, message: echoText },
        { type: "error", status: 503, message: echoText },
      );
      provider.reply = { type: "text", text: `Your key is ${forms.join(" and ")}.`, chunks: 7 };
      const answered = await ide.runTurn({ conversationId, text: "what is my key?" });
      expect(answered.end).toEqual({});
      expect(answered.text).toContain("[redacted]");
      expect(leaks(asText(answered))).toEqual([]);
      // Out of attempts: the failure the IDE sees.
      provider.fake.enqueue(
        ...Array.from({ length: 6 }, () => ({
          type: "error" as const,
          status: 500 as const,
          message: echoText,
        })),
      );
      const failed = await ide.runTurn({ conversationId, text: "again" });
      expect(leaks(asText(failed))).toEqual([]);
      expect(leaks(asText(await gateway.history(conversationId)))).toEqual([]);
      expect(leaks(gateway.dump())).toEqual([]);
      expect(leaks(gateway.process.output())).toEqual([]);
    } finally {
      transport.close();
    }
  });
});

describe("the IDE's session token", () => {
  it("is learnt by the gateway's redaction path from the wire request that carries it", async () => {
    const running = await startInProcessGateway({ provider, dataDir: folders.create() });
    try {
      const token = "cursor-session-token-learnt-0123456789";
      expect(running.service.redactor.redact(`quoted ${token}`)).toContain(token);
      const answer = await fetch(`${running.url}${wireRoutes.availableModels}`, {
        method: "POST",
        headers: { "content-type": "application/proto", authorization: `Bearer ${token}` },
        body: new Uint8Array(0),
      });
      expect(answer.status).toBe(200);
      expect(running.service.redactor.redact(`quoted ${token}`)).toBe("quoted [redacted]");
    } finally {
      await running.close();
    }
  });
});
