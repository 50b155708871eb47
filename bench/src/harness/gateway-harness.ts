import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, localTenant, startGateway, tenantCacheScope } from "@cursor/server";
import type { RunningGateway } from "@cursor/server";
import { startFakeProvider } from "@cursor/testkit";
import type { FakeProvider } from "@cursor/testkit";
import type { ToolBridgeFactory } from "@cursor/wire";
import { ScriptedReplies } from "./scripted-replies.js";

/** The provider packages the benchmark drives, each against its simulated API. */
export type BenchProvider = "openai-responses" | "openai-chat" | "anthropic";

export const benchCheckpointSecret = "bench-checkpoint-secret-0123456789abcdef";
/**
 * The prompt-cache scope the gateway gives the bench's requests (no tokens: the `local` tenant),
 * from the gateway's own derivation, so a re-projection serialises the very `prompt_cache_key` the
 * gateway sent.
 */
export const benchCacheScope = tenantCacheScope({
  checkpointSecret: benchCheckpointSecret,
  tenantId: localTenant.id,
});
/** A context window no benchmark history reaches (measurements without compaction). */
export const unlimitedContextWindow = 1_000_000_000;
/** The model the Anthropic runs name (OpenAI runs use the gateway's default, gpt-5). */
const benchAnthropicModel = "claude-sonnet-4-6";

export interface GatewayHarnessOptions {
  readonly provider: BenchProvider;
  /** `CURSOR_GATEWAY_CONTEXT_WINDOW`: tokens before automatic compaction. */
  readonly contextWindow?: number;
  /** Simulated time (ms) for the provider cache and the gateway clock; default `Date.now`. */
  readonly clock?: () => number;
  /** Runs the tool rounds of Cursor turns (the wire's default answers "not available"). */
  readonly toolBridge?: ToolBridgeFactory;
}

/**
 * The real gateway (`startGateway`, SQLite in a fresh data folder, real HTTP) configured for a
 * provider package whose base URL points at the testkit's fake provider, so every provider call
 * goes through the provider package and its SDK and is priced by the prefix-cache simulation.
 */
export class GatewayHarness {
  readonly provider: BenchProvider;
  readonly fake: FakeProvider;
  readonly replies: ScriptedReplies;
  readonly dataDir: string;
  #gateway: RunningGateway;
  readonly #options: GatewayHarnessOptions;

  private constructor(input: {
    options: GatewayHarnessOptions;
    fake: FakeProvider;
    replies: ScriptedReplies;
    dataDir: string;
    gateway: RunningGateway;
  }) {
    this.#options = input.options;
    this.provider = input.options.provider;
    this.fake = input.fake;
    this.replies = input.replies;
    this.dataDir = input.dataDir;
    this.#gateway = input.gateway;
  }

  static async start(options: GatewayHarnessOptions): Promise<GatewayHarness> {
    const replies = new ScriptedReplies();
    const fake = await startFakeProvider({
      defaultReply: replies.next,
      ...(options.clock === undefined ? {} : { cache: { clock: options.clock } }),
    });
    const dataDir = mkdtempSync(join(tmpdir(), "cursor-bench-"));
    const gateway = await launchGateway({
      provider: options.provider,
      providerURL: providerURLOf(options.provider, fake),
      dataDir,
      contextWindow: options.contextWindow,
      clock: options.clock,
      toolBridge: options.toolBridge,
    });
    return new GatewayHarness({ options, fake, replies, dataDir, gateway });
  }

  get url(): string {
    return this.#gateway.url;
  }

  get gateway(): RunningGateway {
    return this.#gateway;
  }

  /** A process restart: the same data folder, a fresh gateway (in-memory heads are gone). */
  async restart(): Promise<void> {
    await this.#gateway.close();
    this.#gateway = await launchGateway({
      provider: this.provider,
      providerURL: providerURLOf(this.provider, this.fake),
      dataDir: this.dataDir,
      contextWindow: this.#options.contextWindow,
      clock: this.#options.clock,
      toolBridge: this.#options.toolBridge,
    });
  }

  async close(): Promise<void> {
    await this.#gateway.close();
    await this.fake.close();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/**
 * The operator's environment variables for a bench gateway: a loopback port of its own, the data
 * folder, `provider` pointing at `providerURL` (a fake provider), the bench checkpoint secret.
 */
export function gatewayEnvironment({
  provider,
  providerURL,
  dataDir,
  contextWindow,
  cacheBytes,
}: {
  provider: BenchProvider;
  providerURL: string;
  dataDir: string;
  contextWindow?: number | undefined;
  /** The gateway's memory budget (`CURSOR_GATEWAY_CACHE_BYTES`); its default when undefined. */
  cacheBytes?: number | undefined;
}): Record<string, string> {
  return {
    CURSOR_GATEWAY_HOST: "127.0.0.1",
    CURSOR_GATEWAY_PORT: "0",
    CURSOR_GATEWAY_DATA_DIR: dataDir,
    CURSOR_GATEWAY_PROVIDER: provider,
    CURSOR_GATEWAY_CHECKPOINT_SECRET: benchCheckpointSecret,
    ...(contextWindow === undefined
      ? {}
      : { CURSOR_GATEWAY_CONTEXT_WINDOW: String(contextWindow) }),
    ...(cacheBytes === undefined ? {} : { CURSOR_GATEWAY_CACHE_BYTES: String(cacheBytes) }),
    ...(provider === "anthropic"
      ? {
          ANTHROPIC_API_KEY: "bench-key",
          ANTHROPIC_BASE_URL: providerURL,
          // The server's default Anthropic model is one the SDK warns about on every call.
          CURSOR_GATEWAY_MODEL: benchAnthropicModel,
        }
      : { OPENAI_API_KEY: "bench-key", OPENAI_BASE_URL: providerURL }),
  };
}

/**
 * Starts the real gateway in this process on a loopback port, configured through the same
 * environment variables an operator uses, with `provider` pointing at `providerURL` (a fake
 * provider: `openaiBaseURL` for OpenAI, `anthropicBaseURL` for Anthropic).
 */
export async function launchGateway({
  provider,
  providerURL,
  dataDir,
  contextWindow,
  cacheBytes,
  clock,
  toolBridge,
}: {
  provider: BenchProvider;
  providerURL: string;
  dataDir: string;
  contextWindow?: number | undefined;
  cacheBytes?: number | undefined;
  clock?: (() => number) | undefined;
  toolBridge?: ToolBridgeFactory | undefined;
}): Promise<RunningGateway> {
  const environment = gatewayEnvironment({
    provider,
    providerURL,
    dataDir,
    contextWindow,
    cacheBytes,
  });
  return startGateway({
    config: loadConfig(environment),
    logger: false,
    // No retries: a failed call must show as a failure, not as a second, differently-cached call.
    retry: { maxAttempts: 1 },
    ...(clock === undefined ? {} : { now: () => new Date(clock()) }),
    ...(toolBridge === undefined ? {} : { toolBridge }),
  });
}

function providerURLOf(provider: BenchProvider, fake: FakeProvider): string {
  return provider === "anthropic" ? fake.anthropicBaseURL : fake.openaiBaseURL;
}
