import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { gatewayChecks } from "./doctor-command.js";

/**
 * The doctor's gateway part against real HTTP servers: a stand-in for the proxy's status routes,
 * a gateway that answers, one that is down, and a proxy with no BYOK model configured.
 */

const servers: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  await Promise.all(
    servers
      .splice(0)
      .map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
  );
});

async function serve(routes: Record<string, unknown>): Promise<string> {
  const server = createServer((request, response) => {
    const body = routes[request.url ?? ""];
    response.writeHead(body === undefined ? 404 : 200, { "content-type": "application/json" });
    response.end(JSON.stringify(body ?? { error: "not found" }));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A loopback URL nothing listens on (a server started, then closed). */
async function closedURL(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

const status = (
  gatewayURL: string,
  models: { id: string; displayName: string; provider?: string }[],
) => ({
  service: "cursor-gateway-proxy",
  proxyURL: "http://127.0.0.1:18080",
  caCertPath: "/tmp/ca.pem",
  caFingerprint256: "AA:BB",
  gatewayURL,
  cursorUpstream: null,
  models,
});

const okProviders = {
  "/_cursor-gateway/providers": {
    checks: [
      {
        modelId: "byok/gpt-5",
        provider: "openai-responses",
        status: "ok",
        message: "the key is accepted",
      },
    ],
  },
};

describe("doctor: the gateway, the BYOK models and the keys", () => {
  it("all well: each check ok", async () => {
    const gatewayURL = await serve({ "/healthz": { ok: true } });
    const proxyURL = await serve(okProviders);
    const checks = await gatewayChecks({
      status: status(gatewayURL, [
        { id: "byok/gpt-5", displayName: "gpt-5", provider: "openai-responses" },
      ]),
      proxyURL,
    });
    expect(checks.map((check) => [check.name, check.status])).toEqual([
      ["gateway", "ok"],
      ["BYOK models", "ok"],
      ["key for byok/gpt-5", "ok"],
    ]);
  });

  it("the gateway unreachable: a fail naming its URL, with what to do", async () => {
    const gatewayURL = await closedURL();
    const proxyURL = await serve(okProviders);
    const checks = await gatewayChecks({
      status: status(gatewayURL, [
        { id: "byok/gpt-5", displayName: "gpt-5", provider: "openai-responses" },
      ]),
      proxyURL,
    });
    const gateway = checks.find((check) => check.name === "gateway")!;
    expect(gateway.status).toBe("fail");
    expect(gateway.detail).toContain(`the gateway at ${gatewayURL} does not answer`);
    expect(gateway.fix).toContain("restart cursor-gateway proxy");
  });

  it("an unhealthy gateway: a fail pointing at the log", async () => {
    const gatewayURL = await serve({ "/healthz": { ok: false } });
    const proxyURL = await serve(okProviders);
    const [gateway] = await gatewayChecks({
      status: status(gatewayURL, [{ id: "byok/gpt-5", displayName: "gpt-5" }]),
      proxyURL,
    });
    expect(gateway).toMatchObject({ name: "gateway", status: "fail" });
    expect(gateway!.detail).toContain("/healthz is not healthy");
  });

  it("no BYOK model configured: a fail that says every run goes to Cursor and how to add one", async () => {
    const gatewayURL = await serve({ "/healthz": { ok: true } });
    const proxyURL = await serve({ "/_cursor-gateway/providers": { checks: [] } });
    const checks = await gatewayChecks({ status: status(gatewayURL, []), proxyURL });
    const models = checks.find((check) => check.name === "BYOK models")!;
    expect(models.status).toBe("fail");
    expect(models.detail).toBe("no BYOK model is configured: every run goes to Cursor");
    expect(models.fix).toContain("CURSOR_GATEWAY_MODELS_FILE");
  });

  it("the proxy cannot check the keys: a fail with the reason", async () => {
    const gatewayURL = await serve({ "/healthz": { ok: true } });
    const proxyURL = await serve({});
    const checks = await gatewayChecks({
      status: status(gatewayURL, [{ id: "byok/gpt-5", displayName: "gpt-5" }]),
      proxyURL,
    });
    expect(checks.at(-1)).toMatchObject({ name: "provider keys", status: "fail" });
  });
});
