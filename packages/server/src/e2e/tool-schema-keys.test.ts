import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSseEvents } from "../client/gateway-client.js";
import type { RunningGateway } from "../start-gateway.js";
import { temporaryFolders, wireApis } from "./e2e-environment.js";
import { startInProcessGateway } from "./in-process-gateway.js";
import { startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";
import { runEnded } from "./sse-run.js";

const folders = temporaryFolders("tool-schema");
afterAll(() => folders.removeAll());

// Sent as raw JSON text, as a client would: `__proto__` is an ordinary property name there.
const body = (conversationId: string) =>
  `{"conversationId":"${conversationId}","runId":"r1","mode":"agent","action":{"type":"user-message","message":{"id":"m1","text":"look it up"}},"requestContext":{"mcp":{"servers":[{"name":"db","tools":[{"name":"lookup","description":"Looks a key up.","inputSchema":{"type":"object","properties":{"__proto__":{"type":"string"},"limit":{"type":"number"}},"required":["__proto__"]}}]}]}}}`;

describe.each(wireApis)("a tool argument named __proto__ (%s)", (api) => {
  let provider: ScriptedProvider;
  let gateway: RunningGateway;

  beforeAll(async () => {
    provider = await startScriptedProvider();
    gateway = await startInProcessGateway({ api, provider, dataDir: folders.create() });
  });
  afterAll(async () => {
    await gateway.close();
    await provider.fake.close();
  });

  it("reaches the provider as a property, still required", async () => {
    provider.reply = { type: "text", text: "Done." };
    const response = await fetch(`${gateway.url}/v1/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: body("proto-key"),
    });
    expect(runEnded(parseSseEvents(await response.text()))).toEqual({ reason: "completed" });
    const sent = JSON.stringify(provider.fake.requests.at(-1)!.body);
    expect(sent).toContain(
      '"properties":{"__proto__":{"type":"string"},"limit":{"type":"number"}}',
    );
    expect(sent).toContain('"required":["__proto__"]');
  });
});
