import { createServer } from "node:http";
import type { AddressInfo, Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkProviderKey } from "./provider-key-check.js";

const goodKey = "sk-test-good-0123456789";
const badKey = "sk-test-bad-0123456789";

/** A provider's model-list endpoint, answering in the OpenAI or the Anthropic shape. */
let server: Server;
let origin = "";
beforeAll(async () => {
  server = createServer((req, res) => {
    const key = req.headers["x-api-key"] ?? req.headers.authorization?.replace(/^Bearer /, "");
    if (key !== goodKey) {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          error: {
            message: `Incorrect API key provided: ${String(key)}`,
            type: "invalid_request_error",
          },
        }),
      );
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    const anthropic = req.headers["anthropic-version"] !== undefined;
    res.end(
      JSON.stringify(
        anthropic
          ? {
              data: [
                {
                  id: "claude-sonnet-4-6",
                  type: "model",
                  display_name: "Sonnet",
                  created_at: "2026-01-01T00:00:00Z",
                },
              ],
              has_more: false,
              first_id: "a",
              last_id: "a",
            }
          : {
              object: "list",
              data: [{ id: "gpt-5", object: "model", created: 0, owned_by: "openai" }],
            },
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("checkProviderKey", () => {
  it("accepts a key the provider accepts, through the official SDKs", async () => {
    await expect(
      checkProviderKey({
        modelId: "m",
        provider: "openai-responses",
        model: "gpt-5",
        apiKey: goodKey,
        baseURL: `${origin}/v1`,
      }),
    ).resolves.toEqual({
      modelId: "m",
      provider: "openai-responses",
      status: "ok",
      message: `${origin}/v1 accepted the key (model gpt-5)`,
    });
    await expect(
      checkProviderKey({
        modelId: "m",
        provider: "anthropic",
        model: "claude-sonnet-4-6",
        apiKey: goodKey,
        baseURL: origin,
      }),
    ).resolves.toMatchObject({ status: "ok" });
  });

  it("fails a rejected key without ever showing it", async () => {
    for (const provider of ["openai-chat", "anthropic"] as const) {
      const check = await checkProviderKey({
        modelId: "m",
        provider,
        model: "x",
        apiKey: badKey,
        baseURL: provider === "anthropic" ? origin : `${origin}/v1`,
      });
      expect(check.status).toBe("fail");
      expect(check.message).toContain("rejected the key (HTTP 401)");
      expect(JSON.stringify(check)).not.toContain(badKey);
    }
  });

  it("warns when the key cannot use the configured model", async () => {
    const check = await checkProviderKey({
      modelId: "m",
      provider: "openai-responses",
      model: "gpt-9",
      apiKey: goodKey,
      baseURL: `${origin}/v1`,
    });
    expect(check).toMatchObject({ status: "warn" });
    expect(check.message).toContain("has no gpt-9");
  });

  it("says when the provider cannot be reached, and that the simulated provider has no key", async () => {
    const unreachable = await checkProviderKey({
      modelId: "m",
      provider: "openai-responses",
      model: "gpt-5",
      apiKey: goodKey,
      baseURL: "http://127.0.0.1:1/v1",
      timeoutMs: 2_000,
    });
    expect(unreachable.status).toBe("fail");
    expect(unreachable.message).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:1\/v1/);
    expect(
      await checkProviderKey({ modelId: "m", provider: "simulated", model: "simulated-model" }),
    ).toMatchObject({ status: "warn" });
    expect(
      await checkProviderKey({ modelId: "m", provider: "anthropic", model: "x" }),
    ).toMatchObject({ status: "fail", message: "no key configured for anthropic" });
  });
});
