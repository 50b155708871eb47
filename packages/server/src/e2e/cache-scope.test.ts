import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGateway } from "../start-gateway.js";
import { temporaryFolders } from "./e2e-environment.js";
import { userTurn } from "./e2e-helpers.js";
import { startInProcessGateway } from "./in-process-gateway.js";
import { startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";
import { runEnded, streamRun } from "./sse-run.js";

const folders = temporaryFolders("cache-scope");
afterAll(() => folders.removeAll());

const tokenA = "cache-scope-tenant-a-0123456789";
const tokenB = "cache-scope-tenant-b-0123456789";

describe.each(["openai-responses", "openai-chat"] as const)("prompt_cache_key (%s)", (api) => {
  let provider: ScriptedProvider;
  let gateway: RunningGateway;

  beforeAll(async () => {
    provider = await startScriptedProvider();
    gateway = await startInProcessGateway({
      api,
      provider,
      dataDir: folders.create(),
      extra: { CURSOR_GATEWAY_TOKENS: `${tokenA},${tokenB}` },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await provider.fake.close();
  });

  async function keyOf(token: string, turn: number): Promise<string> {
    provider.reply = { type: "text", text: `answer ${turn}` };
    const result = await streamRun(gateway.url, userTurn({ conversationId: "shared-id", turn }), {
      token,
    });
    expect(runEnded(result.events)).toEqual({ reason: "completed" });
    return (provider.fake.requests.at(-1)!.body as { prompt_cache_key: string }).prompt_cache_key;
  }

  it("is one key per tenant's conversation: two tenants with the same conversation id never share one", async () => {
    const a1 = await keyOf(tokenA, 1);
    const b1 = await keyOf(tokenB, 1);
    const a2 = await keyOf(tokenA, 2);
    expect(a1).not.toBe(b1);
    expect(a2).toBe(a1);
    for (const key of [a1, b1]) {
      for (const secret of [tokenA, tokenB, "shared-id", tokenA.slice(0, 12)]) {
        expect(key).not.toContain(secret);
      }
    }
    // The cache simulation agrees: tenant B's first turn found nothing of tenant A's cached.
    const [first, second, third] = provider.fake.requests.slice(-3);
    expect(second!.usage?.cachedInputTokens).toBe(0);
    expect(third!.usage?.cachedInputTokens).toBeGreaterThan(0);
    expect(first!.usage?.cachedInputTokens).toBe(0);
  });
});
