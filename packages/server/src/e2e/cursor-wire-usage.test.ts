import type { CallsPage, UsageSummaryView } from "../usage/usage-api.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayClient } from "../client/gateway-client.js";
import { fullCursorContext } from "./cursor-context.js";
import { scriptedIde, startWireGateway } from "./cursor-wire-harness.js";
import type { WireGateway } from "./cursor-wire-harness.js";
import { temporaryFolders } from "./e2e-environment.js";
import { killAllGatewayProcesses } from "./gateway-process.js";
import { startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";

const folders = temporaryFolders("cursor-wire-usage");
let provider: ScriptedProvider;
let gateway: WireGateway;
beforeAll(async () => {
  provider = await startScriptedProvider();
  gateway = await startWireGateway({ provider, dataDir: folders.create() });
});
afterAll(async () => {
  await gateway.stop();
  await killAllGatewayProcesses();
  await provider.fake.close();
  folders.removeAll();
});

describe("usage records of Cursor-wire turns", () => {
  it("records every provider call of a Cursor turn as the provider reported it, like a JSON-contract turn", async () => {
    const { ide, transport } = scriptedIde({ url: gateway.url, protocol: "h1" });
    const conversationId = "wire-usage-1";
    try {
      provider.reply = { type: "text", text: "First." };
      const first = await ide.runTurn({
        conversationId,
        text: "What does this repo do?",
        mode: "ask",
        requestContext: fullCursorContext(),
      });
      expect(first.end).toEqual({});
      provider.reply = { type: "text", text: "Second." };
      const second = await ide.runTurn({ conversationId, text: "And the tests?", mode: "ask" });
      expect(second.end).toEqual({});
    } finally {
      transport.close();
    }
    const requests = provider.fake.requests.slice(-2);
    const client = createGatewayClient({ baseURL: gateway.url });
    const answer = await client.get(`/v1/conversations/${conversationId}/calls`);
    expect(answer.status).toBe(200);
    const { calls } = answer.body as CallsPage;
    expect(calls).toHaveLength(2);
    expect(calls.map((call) => call.usage)).toEqual(
      requests.map((request) => ({
        inputTokens: request.usage!.inputTokens,
        cachedInputTokens: request.usage!.cachedInputTokens,
        cacheWriteTokens: request.usage!.cacheWriteTokens,
        outputTokens: request.usage!.outputTokens,
      })),
    );
    expect(calls.map((call) => [call.kind, call.outcome, call.prefix.status])).toEqual([
      ["model", "ok", "first"],
      ["model", "ok", "extends"],
    ]);
    expect(calls[1]!.prefix.sharedItems).toBe(calls[0]!.prefix.historyItems);
    expect(calls[1]!.usage!.cachedInputTokens).toBeGreaterThan(0);
    expect(calls[1]!.cost!.usd).toBeGreaterThan(0);
    const summary = (await client.get("/v1/usage")).body as UsageSummaryView;
    expect(summary.calls).toBeGreaterThanOrEqual(2);
  });
});
