import { resolve } from "node:path";
import { CursorError } from "@cursor/run";
import { z } from "zod";
import { defaultProviderModels, providerNames } from "./models/model-config.js";
import type { ModelConfig, ProviderName } from "./models/model-config.js";
import { httpURLSchema as httpURL, readModelsFile } from "./models/models-file.js";
import { defaultConnectionLimits } from "./http/connection-limits.js";
import type { ConnectionLimits } from "./http/connection-limits.js";
import {
  providerOptionIssues,
  singleProviderOptionVariables,
  singleProviderOptions,
  singleProviderOptionsEnvironment,
} from "./models/provider-options.js";
import { checkDatabaseURL } from "./store/database-url.js";
import { readPricesFile } from "./usage/price-table.js";
import type { PriceTable } from "./usage/price-table.js";

/** pino's levels; `silent` logs nothing. */
export const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof logLevels)[number];
/** `pretty`: one readable line per event (the default on a terminal); `json`: one JSON object per line. */
export const logFormats = ["pretty", "json"] as const;
export type LogFormat = (typeof logFormats)[number];

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

/** A duration in seconds (fractions allowed, e.g. `0.5`), as milliseconds. */
const optionalSeconds = optionalText.pipe(
  z
    .string()
    .regex(/^\d{1,6}(\.\d{1,3})?$/, "a number of seconds, e.g. 30 or 0.5")
    .transform((seconds) => Math.round(Number(seconds) * 1000))
    .refine((ms) => ms > 0, "more than 0 seconds")
    .optional(),
);

const byteUnits = { "": 1, B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 } as const;

/** A size in bytes: a whole number, optionally with a binary unit (`256MiB`, `1GiB`). */
const optionalBytes = optionalText.pipe(
  z
    .string()
    .regex(/^\d{1,13}\s*(B|KiB|MiB|GiB)?$/, "a size in bytes, e.g. 268435456, 256MiB or 1GiB")
    .transform((text) => {
      const [, digits = "", unit = ""] = /^(\d+)\s*(\w*)$/.exec(text) ?? [];
      return Number(digits) * byteUnits[unit as keyof typeof byteUnits];
    })
    .refine((bytes) => bytes <= 2 ** 40, "at most 1 TiB (1024GiB)")
    .optional(),
);

const environmentSchema = singleProviderOptionsEnvironment.extend({
  CURSOR_GATEWAY_HOST: optionalText,
  CURSOR_GATEWAY_PORT: optionalText.pipe(
    z
      .string()
      .regex(/^\d{1,5}$/, "a port number")
      .transform(Number)
      .refine((port) => port <= 65535, "a port number up to 65535")
      .optional(),
  ),
  CURSOR_GATEWAY_DATA_DIR: optionalText,
  CURSOR_GATEWAY_MODELS_FILE: optionalText,
  CURSOR_GATEWAY_PROVIDER: optionalText.pipe(z.enum(providerNames).optional()),
  CURSOR_GATEWAY_MODEL: optionalText,
  OPENAI_API_KEY: optionalText,
  OPENAI_BASE_URL: optionalText.pipe(httpURL.optional()),
  ANTHROPIC_API_KEY: optionalText,
  ANTHROPIC_BASE_URL: optionalText.pipe(httpURL.optional()),
  CURSOR_GATEWAY_TOKENS: optionalText,
  CURSOR_GATEWAY_WIRE_TOKEN: optionalText,
  CURSOR_GATEWAY_CHECKPOINT_SECRET: optionalText.pipe(
    z.string().min(32, "at least 32 characters").optional(),
  ),
  CURSOR_GATEWAY_HEADERS_TIMEOUT_SECONDS: optionalSeconds,
  CURSOR_GATEWAY_REQUEST_TIMEOUT_SECONDS: optionalSeconds,
  CURSOR_GATEWAY_IDLE_TIMEOUT_SECONDS: optionalSeconds,
  CURSOR_GATEWAY_KEEP_ALIVE_TIMEOUT_SECONDS: optionalSeconds,
  CURSOR_GATEWAY_MAX_CONNECTIONS_PER_CLIENT: optionalText.pipe(
    z
      .string()
      .regex(/^\d{1,6}$/, "a whole number of connections (0: no cap)")
      .transform(Number)
      .optional(),
  ),
  CURSOR_GATEWAY_CONTEXT_WINDOW: optionalText.pipe(
    z
      .string()
      .regex(/^\d+$/, "a whole number of tokens")
      .transform(Number)
      .refine((tokens) => tokens >= 4096, "at least 4096 tokens")
      .optional(),
  ),
  CURSOR_GATEWAY_LOG_LEVEL: optionalText.pipe(
    z.enum(logLevels, { error: `one of ${logLevels.join(", ")}` }).optional(),
  ),
  CURSOR_GATEWAY_LOG_FORMAT: optionalText.pipe(
    z.enum(logFormats, { error: `one of ${logFormats.join(", ")}` }).optional(),
  ),
  // The message names what is wrong, never the value: the URL may carry a password.
  CURSOR_GATEWAY_DATABASE_URL: optionalText.superRefine((value, context) => {
    const problem = value === undefined ? undefined : checkDatabaseURL(value);
    if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
  }),
  CURSOR_GATEWAY_RUN_LEASE_SECONDS: optionalText.pipe(
    z
      .string()
      .regex(/^\d+$/, "a whole number of seconds")
      .transform(Number)
      .refine((seconds) => seconds >= 3 && seconds <= 3600, "between 3 and 3600 seconds")
      .optional(),
  ),
  CURSOR_GATEWAY_USAGE_RETENTION_DAYS: optionalText.pipe(
    z
      .string()
      .regex(/^\d+$/, "a whole number of days")
      .transform(Number)
      .refine((days) => days >= 1 && days <= 3650, "between 1 and 3650 days")
      .optional(),
  ),
  CURSOR_GATEWAY_PRICES_FILE: optionalText,
  CURSOR_GATEWAY_CACHE_BYTES: optionalBytes,
});

/** Variables whose values are secrets: a problem with one never quotes its value. */
const secretVariables = new Set([
  "CURSOR_GATEWAY_DATABASE_URL",
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "CURSOR_GATEWAY_TOKENS",
  "CURSOR_GATEWAY_WIRE_TOKEN",
  "CURSOR_GATEWAY_CHECKPOINT_SECRET",
]);

export interface GatewayConfig {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /**
   * The BYOK models, the default first: the entries of `CURSOR_GATEWAY_MODELS_FILE`, or one
   * model from the single-provider variables.
   */
  readonly models: readonly [ModelConfig, ...ModelConfig[]];
  /** Bearer tokens; each is one tenant. Empty: no auth (loopback only). */
  readonly tokens: readonly string[];
  /**
   * One of `tokens`: its tenant holds the Cursor IDE's conversations (the wire routes). Undefined:
   * the no-auth tenant.
   */
  readonly wireToken?: string;
  /** Undefined: generated once and kept in the data folder. */
  readonly checkpointSecret?: string;
  readonly contextWindow: number;
  /** Timeouts and the per-client connection cap of the gateway's port. */
  readonly connections: ConnectionLimits;
  /** `CURSOR_GATEWAY_LOG_LEVEL`, default `info`. */
  readonly logLevel: LogLevel;
  /** `CURSOR_GATEWAY_LOG_FORMAT`; undefined: pretty on a terminal, JSON otherwise. */
  readonly logFormat?: LogFormat;
  /**
   * PostgreSQL (`CURSOR_GATEWAY_DATABASE_URL`): the store several gateway processes share.
   * Undefined: SQLite in the data folder.
   */
  readonly databaseURL?: string;
  /**
   * How long a run holds its conversation without renewing (`CURSOR_GATEWAY_RUN_LEASE_SECONDS`,
   * default 30 s): the longest a frozen process keeps another from taking the conversation over.
   */
  readonly runLeaseMs?: number;
  /**
   * How long usage records of provider calls are kept (`CURSOR_GATEWAY_USAGE_RETENTION_DAYS`,
   * default 30 days): older ones are deleted at start and every hour.
   */
  readonly usageRetentionDays?: number;
  /** Prices per provider model (`CURSOR_GATEWAY_PRICES_FILE` over the built-in table). */
  readonly prices?: PriceTable;
  /**
   * The byte budget of the in-memory caches (`CURSOR_GATEWAY_CACHE_BYTES`, default 256 MiB):
   * conversation heads, their checkpoint segments, provider request bodies and prompt specs.
   */
  readonly cacheBytes?: number;
}

/** Usage records are kept this many days unless configured otherwise. */
export const defaultUsageRetentionDays = 30;

const defaultDataDir = "./.cursor-gateway";

const configErrorMarker = Symbol.for("cursor.error.config");
/** The environment does not describe a runnable gateway; lists every problem at once. */
export class ConfigError extends CursorError {
  readonly [configErrorMarker] = true;
  readonly issues: readonly string[];
  constructor({ issues }: { issues: readonly string[] }) {
    super({
      name: "ConfigError",
      message: `invalid gateway configuration:\n${issues.map((issue) => `  - ${issue}`).join("\n")}`,
    });
    this.issues = issues;
  }
  static override isInstance(error: unknown): error is ConfigError {
    return typeof error === "object" && error !== null && configErrorMarker in error;
  }
}

/**
 * Reads the gateway configuration from environment variables (docs/http-contract.md), and the models
 * file when `CURSOR_GATEWAY_MODELS_FILE` names one (its keys from the variables it names). Every
 * problem is reported at once; no message contains a key.
 */
export function loadConfig(environment: Record<string, string | undefined>): GatewayConfig {
  // Every variable is checked on its own, so that one bad value does not hide the others.
  const issues: string[] = [];
  const parsed: Record<string, unknown> = {};
  const failed = new Set<string>();
  for (const [name, schema] of Object.entries(environmentSchema.shape)) {
    const result = schema.safeParse(environment[name]);
    if (result.success) {
      parsed[name] = result.data;
      continue;
    }
    failed.add(name);
    const value = environment[name]?.trim() ?? "";
    const shown = secretVariables.has(name) ? "" : ` (got ${JSON.stringify(value)})`;
    issues.push(...result.error.issues.map((issue) => `${name}: ${issue.message}${shown}`));
  }
  const env = parsed as z.infer<typeof environmentSchema>;
  let models: readonly [ModelConfig, ...ModelConfig[]] | undefined;
  if (env.CURSOR_GATEWAY_MODELS_FILE !== undefined) {
    const file = readModelsFile({ path: env.CURSOR_GATEWAY_MODELS_FILE, environment });
    if (file.success) models = file.models;
    else issues.push(...file.issues);
  } else if (!failed.has("CURSOR_GATEWAY_PROVIDER")) {
    const single = singleProviderModel(env);
    if (single.success) models = [single.model];
    else issues.push(...single.issues);
  }
  const tokens = parseTokens(env.CURSOR_GATEWAY_TOKENS);
  issues.push(...tokens.issues);
  const host = env.CURSOR_GATEWAY_HOST ?? "127.0.0.1";
  if (env.CURSOR_GATEWAY_TOKENS === undefined && !isLoopbackHost(host)) {
    issues.push(
      `CURSOR_GATEWAY_TOKENS must be set to listen on ${host}: without tokens the gateway only listens on loopback`,
    );
  }
  if (
    env.CURSOR_GATEWAY_DATABASE_URL !== undefined &&
    env.CURSOR_GATEWAY_CHECKPOINT_SECRET === undefined
  ) {
    issues.push(
      "CURSOR_GATEWAY_CHECKPOINT_SECRET must be set with CURSOR_GATEWAY_DATABASE_URL: every process of the deployment signs and checks client checkpoints with the same secret",
    );
  }
  let prices: PriceTable | undefined;
  if (env.CURSOR_GATEWAY_PRICES_FILE !== undefined) {
    const file = readPricesFile(env.CURSOR_GATEWAY_PRICES_FILE);
    if (file.success) prices = file.table;
    else issues.push(...file.issues);
  }
  const wireToken = env.CURSOR_GATEWAY_WIRE_TOKEN;
  if (wireToken !== undefined && !tokens.tokens.includes(wireToken)) {
    issues.push(
      tokens.tokens.length === 0
        ? "CURSOR_GATEWAY_WIRE_TOKEN needs CURSOR_GATEWAY_TOKENS: it names the tenant (one of those tokens) that holds the Cursor IDE's conversations"
        : "CURSOR_GATEWAY_WIRE_TOKEN must be one of the tokens in CURSOR_GATEWAY_TOKENS",
    );
  }
  if (issues.length > 0 || models === undefined) throw new ConfigError({ issues });
  return {
    host,
    port: env.CURSOR_GATEWAY_PORT ?? 8787,
    dataDir: env.CURSOR_GATEWAY_DATA_DIR ?? defaultDataDir,
    models,
    tokens: tokens.tokens,
    ...(wireToken === undefined ? {} : { wireToken }),
    ...(env.CURSOR_GATEWAY_CHECKPOINT_SECRET === undefined
      ? {}
      : { checkpointSecret: env.CURSOR_GATEWAY_CHECKPOINT_SECRET }),
    contextWindow: env.CURSOR_GATEWAY_CONTEXT_WINDOW ?? 200_000,
    logLevel: env.CURSOR_GATEWAY_LOG_LEVEL ?? "info",
    ...(env.CURSOR_GATEWAY_LOG_FORMAT === undefined
      ? {}
      : { logFormat: env.CURSOR_GATEWAY_LOG_FORMAT }),
    ...(env.CURSOR_GATEWAY_DATABASE_URL === undefined
      ? {}
      : { databaseURL: env.CURSOR_GATEWAY_DATABASE_URL }),
    ...(env.CURSOR_GATEWAY_RUN_LEASE_SECONDS === undefined
      ? {}
      : { runLeaseMs: env.CURSOR_GATEWAY_RUN_LEASE_SECONDS * 1000 }),
    ...(env.CURSOR_GATEWAY_USAGE_RETENTION_DAYS === undefined
      ? {}
      : { usageRetentionDays: env.CURSOR_GATEWAY_USAGE_RETENTION_DAYS }),
    ...(prices === undefined ? {} : { prices }),
    ...(env.CURSOR_GATEWAY_CACHE_BYTES === undefined
      ? {}
      : { cacheBytes: env.CURSOR_GATEWAY_CACHE_BYTES }),
    connections: connectionLimitsOf(env),
  };
}

/** The connection limits the variables set, each defaulting to `defaultConnectionLimits`. */
function connectionLimitsOf(env: z.infer<typeof environmentSchema>): ConnectionLimits {
  const d = defaultConnectionLimits;
  const idleTimeoutMs = env.CURSOR_GATEWAY_IDLE_TIMEOUT_SECONDS ?? d.idleTimeoutMs;
  return {
    headersTimeoutMs: env.CURSOR_GATEWAY_HEADERS_TIMEOUT_SECONDS ?? d.headersTimeoutMs,
    requestTimeoutMs: env.CURSOR_GATEWAY_REQUEST_TIMEOUT_SECONDS ?? d.requestTimeoutMs,
    idleTimeoutMs,
    keepAliveTimeoutMs: env.CURSOR_GATEWAY_KEEP_ALIVE_TIMEOUT_SECONDS ?? d.keepAliveTimeoutMs,
    maxConnectionsPerClient:
      env.CURSOR_GATEWAY_MAX_CONNECTIONS_PER_CLIENT ?? d.maxConnectionsPerClient,
    // Streams speak well within the idle timeout, whatever it is set to.
    sseHeartbeatMs: Math.min(d.sseHeartbeatMs, Math.max(100, Math.floor(idleTimeoutMs / 3))),
  };
}

/**
 * `CURSOR_GATEWAY_TOKENS`: split on commas only, each entry trimmed. A token with whitespace
 * inside (a space-separated list), an empty entry, a short token or a repeated one is refused:
 * such a token could never be presented as a bearer token, or would make two tenants one.
 * Messages name entries by position, never by value (tokens are secrets).
 */
function parseTokens(value: string | undefined): { tokens: string[]; issues: string[] } {
  if (value === undefined) return { tokens: [], issues: [] };
  const entries = value.split(",").map((token) => token.trim());
  const issues: string[] = [];
  const seen = new Map<string, number>();
  entries.forEach((token, index) => {
    const position = `token ${index + 1} of ${entries.length}`;
    if (token === "")
      issues.push(
        `CURSOR_GATEWAY_TOKENS: ${position} is empty (separate tokens with commas, nothing in between)`,
      );
    else if (/\s/.test(token))
      issues.push(
        `CURSOR_GATEWAY_TOKENS: ${position} contains whitespace; separate tokens with commas, not spaces`,
      );
    else if (token.length < 16)
      issues.push(`CURSOR_GATEWAY_TOKENS: ${position} is shorter than 16 characters`);
    const first = seen.get(token);
    if (token !== "" && first !== undefined)
      issues.push(
        `CURSOR_GATEWAY_TOKENS: token ${index + 1} repeats token ${first}; each token is one tenant`,
      );
    else seen.set(token, index + 1);
  });
  return { tokens: issues.length === 0 ? entries : [], issues };
}

/** The one model the single-provider variables describe (docs/http-contract.md's table). */
function singleProviderModel(
  env: z.infer<typeof environmentSchema>,
): { success: true; model: ModelConfig } | { success: false; issues: string[] } {
  const provider: ProviderName =
    env.CURSOR_GATEWAY_PROVIDER ??
    (env.OPENAI_API_KEY ? "openai-responses" : env.ANTHROPIC_API_KEY ? "anthropic" : "simulated");
  const model = env.CURSOR_GATEWAY_MODEL ?? defaultProviderModels[provider];
  // The picker's name says whose key answers (the Cursor IDE lists it beside Cursor's models).
  // The id lives in the `byok/` namespace so it can never be the id of a Cursor-hosted model
  // (Cursor's are plain slugs such as `gpt-5`): the proxy routes a run by its exact model id.
  const entry = {
    id: singleProviderModelId(model),
    displayName: `${model} (your key)`,
    provider,
    model,
    ...singleProviderOptions(env),
  };
  const optionIssues = providerOptionIssues({
    name: (field) => singleProviderOptionVariables[field],
    provider,
    effort: entry.effort,
    options: entry,
  });
  if (optionIssues.length > 0) return { success: false, issues: optionIssues };
  switch (provider) {
    case "openai-responses":
    case "openai-chat":
      if (!env.OPENAI_API_KEY) {
        return {
          success: false,
          issues: [`CURSOR_GATEWAY_PROVIDER=${provider} needs OPENAI_API_KEY`],
        };
      }
      return {
        success: true,
        model: {
          ...entry,
          apiKey: env.OPENAI_API_KEY,
          ...(env.OPENAI_BASE_URL === undefined ? {} : { baseURL: env.OPENAI_BASE_URL }),
        },
      };
    case "anthropic":
      if (!env.ANTHROPIC_API_KEY) {
        return {
          success: false,
          issues: ["CURSOR_GATEWAY_PROVIDER=anthropic needs ANTHROPIC_API_KEY"],
        };
      }
      return {
        success: true,
        model: {
          ...entry,
          apiKey: env.ANTHROPIC_API_KEY,
          ...(env.ANTHROPIC_BASE_URL === undefined ? {} : { baseURL: env.ANTHROPIC_BASE_URL }),
        },
      };
    case "simulated":
      return { success: true, model: entry };
    default: {
      const exhaustive: never = provider;
      throw new Error(`unknown provider ${String(exhaustive)}`);
    }
  }
}

/**
 * The catalog id of the model the single-provider variables give: `byok/<provider model>`, e.g.
 * `byok/gpt-5`. A JSON request naming the provider model itself (`gpt-5`) still runs on it.
 */
function singleProviderModelId(model: string): string {
  return `byok/${model}`;
}

/** Auth may be off only when nobody but this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const portSchema = z
  .string()
  .regex(/^\d{1,5}$/, "a port number")
  .transform(Number)
  .refine((port) => port <= 65535, "a port number up to 65535");

const proxyEnvironmentSchema = z.object({
  CURSOR_GATEWAY_DATA_DIR: optionalText,
  CURSOR_GATEWAY_PROXY_PORT: optionalText.pipe(portSchema.optional()),
  CURSOR_GATEWAY_CURSOR_UPSTREAM: optionalText.pipe(
    z
      .url({ protocol: /^https$/, error: "an https:// origin, e.g. https://127.0.0.1:9443" })
      .refine((url) => {
        const parsed = new URL(url);
        return (
          (parsed.pathname === "/" || parsed.pathname === "") &&
          parsed.search === "" &&
          parsed.hash === "" &&
          parsed.username === "" &&
          parsed.password === ""
        );
      }, "an origin only (scheme, host, port), no path, query or credentials")
      .transform((url) => new URL(url).origin)
      .optional(),
  ),
});

/** What `cursor-gateway proxy` adds to the gateway's configuration (cursor-wire.md, last section). */
export interface ProxyConfig {
  /** The gateway's data folder (`CURSOR_GATEWAY_DATA_DIR`), absolute; the CA lives in it. */
  readonly dataDir: string;
  /** The proxy's loopback port (`CURSOR_GATEWAY_PROXY_PORT`, default 18080). */
  readonly port: number;
  /**
   * Origin every relayed request to an intercepted host goes to
   * (`CURSOR_GATEWAY_CURSOR_UPSTREAM`); undefined: the request's own host on its CONNECT port.
   */
  readonly cursorUpstream?: string;
}

export const defaultProxyPort = 18080;

/**
 * Reads the proxy's variables (and the data folder); the gateway's own come from `loadConfig`.
 * `setup` and `doctor` need only these, so they work before any provider key is set.
 */
export function loadProxyConfig(environment: Record<string, string | undefined>): ProxyConfig {
  const parsed = proxyEnvironmentSchema.safeParse(environment);
  if (!parsed.success) {
    throw new ConfigError({
      issues: parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`),
    });
  }
  return {
    dataDir: resolve(parsed.data.CURSOR_GATEWAY_DATA_DIR ?? defaultDataDir),
    port: parsed.data.CURSOR_GATEWAY_PROXY_PORT ?? defaultProxyPort,
    ...(parsed.data.CURSOR_GATEWAY_CURSOR_UPSTREAM === undefined
      ? {}
      : { cursorUpstream: parsed.data.CURSOR_GATEWAY_CURSOR_UPSTREAM }),
  };
}
