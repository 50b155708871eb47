import type { RetryPolicy } from "@cursor/run";
import { loadConfig } from "../config.js";
import { startGateway } from "../start-gateway.js";
import type { RunningGateway } from "../start-gateway.js";
import { gatewayEnvironment } from "./e2e-environment.js";
import type { WireApi } from "./provider-bodies.js";
import type { ScriptedProvider } from "./scripted-provider.js";

/** Quick and deterministic: tests of failures must not wait for production backoff. */
export const fastRetry: Partial<RetryPolicy> = {
  maxAttempts: 3,
  baseDelayMs: 10,
  maxDelayMs: 20,
  maxRetryAfterMs: 5_000,
  random: () => 0.5,
};

/**
 * The real gateway (`startGateway`: Fastify, SQLite store, provider package) in this process,
 * on a loopback port, configured from the same environment variables as `serve`. For tests
 * that need no process boundary and want options `serve` has no variable for (`retry`).
 */
export async function startInProcessGateway({
  api = "openai-responses",
  provider,
  dataDir,
  extra = {},
  retry = fastRetry,
}: {
  api?: WireApi;
  provider: ScriptedProvider;
  dataDir: string;
  extra?: Record<string, string>;
  retry?: Partial<RetryPolicy>;
}): Promise<RunningGateway> {
  const config = loadConfig({
    CURSOR_GATEWAY_HOST: "127.0.0.1",
    CURSOR_GATEWAY_PORT: "0",
    ...gatewayEnvironment({ api, fake: provider.fake, dataDir, extra }),
  });
  return startGateway({ config, retry });
}
