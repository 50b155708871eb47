import { z } from "zod";
import { modelEfforts } from "./model-kinds.js";
import type { ModelEffort, ProviderName } from "./model-kinds.js";

/** Provider settings of a model entry beyond key, endpoint and effort (each provider's own). */
export interface ProviderOptions {
  /** OpenAI Responses and Chat: `prompt_cache_retention` (models before GPT-5.6). */
  readonly promptCacheRetention?: "in-memory" | "24h";
  /** OpenAI Responses and Chat: `prompt_cache_options` (GPT-5.6 and later). */
  readonly promptCacheOptions?: {
    readonly mode?: "implicit" | "explicit";
    readonly ttl?: "30m";
  };
  /** Anthropic: TTL of the cache markers on the tools and the system prompt. */
  readonly stablePrefixCacheTtl?: "5m" | "1h";
  /** Anthropic: extended thinking on or off; its budget comes from the entry's `effort`. */
  readonly thinking?: boolean;
}

/** The models file's fields for them (cursor-wire.md "Models", plus these optional ones). */
export const providerOptionsShape = {
  promptCacheRetention: z.enum(["in-memory", "24h"]).optional(),
  promptCacheOptions: z
    .strictObject({
      mode: z.enum(["implicit", "explicit"]).optional(),
      ttl: z.literal("30m").optional(),
    })
    .optional(),
  stablePrefixCacheTtl: z.enum(["5m", "1h"]).optional(),
  thinking: z.boolean().optional(),
} as const;

const openaiProviders: readonly ProviderName[] = ["openai-responses", "openai-chat"];

type OptionField = keyof ProviderOptions | "effort";

/**
 * What is wrong with an entry's provider settings: each setting belongs to its provider, the two
 * OpenAI cache settings exclude each other (the API would take both, and the cache lifetime
 * would depend on two settings), and Anthropic's thinking needs an effort to size its budget
 * (effort without thinking would be ignored). `name` says where a field was set (a models-file
 * path, or an environment variable).
 */
export function providerOptionIssues({
  name,
  provider,
  effort,
  options,
}: {
  name: (field: OptionField) => string;
  provider: ProviderName;
  effort: ModelEffort | undefined;
  options: ProviderOptions;
}): string[] {
  const issues: string[] = [];
  const only = (field: keyof ProviderOptions, providers: readonly ProviderName[]) => {
    if (options[field] !== undefined && !providers.includes(provider)) {
      issues.push(
        `${name(field)}: only for ${providers.join(" and ")} (this model is ${provider})`,
      );
    }
  };
  only("promptCacheRetention", openaiProviders);
  only("promptCacheOptions", openaiProviders);
  only("stablePrefixCacheTtl", ["anthropic"]);
  only("thinking", ["anthropic"]);
  if (options.promptCacheRetention !== undefined && options.promptCacheOptions !== undefined) {
    issues.push(
      `${name("promptCacheRetention")} and ${name("promptCacheOptions")} exclude each other (the first for models before GPT-5.6, the second from GPT-5.6 on)`,
    );
  }
  if (provider === "anthropic") {
    if (options.thinking === true && effort === "none") {
      issues.push(
        `${name("thinking")}: on needs an effort other than none (it sets the thinking budget)`,
      );
    }
    if (options.thinking === false && effort !== undefined && effort !== "none") {
      issues.push(
        `${name("effort")}: ${effort} has no effect with thinking off (turn thinking on, or drop the effort)`,
      );
    }
  }
  return issues;
}

/** A variable's value, trimmed; unset or blank is undefined (as every gateway variable). */
const variable = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

/** The variables that give the single-provider model these settings (and its effort). */
export const singleProviderOptionsEnvironment = z.object({
  CURSOR_GATEWAY_EFFORT: variable.pipe(z.enum(modelEfforts).optional()),
  CURSOR_GATEWAY_PROMPT_CACHE_RETENTION: variable.pipe(providerOptionsShape.promptCacheRetention),
  CURSOR_GATEWAY_PROMPT_CACHE_TTL: variable.pipe(z.literal("30m").optional()),
  CURSOR_GATEWAY_ANTHROPIC_STABLE_PREFIX_TTL: variable.pipe(
    providerOptionsShape.stablePrefixCacheTtl,
  ),
  CURSOR_GATEWAY_ANTHROPIC_THINKING: variable.pipe(
    z
      .enum(["on", "off"])
      .transform((value) => value === "on")
      .optional(),
  ),
});

/** The single-provider model's effort and provider settings, from the variables above. */
export function singleProviderOptions(
  env: z.infer<typeof singleProviderOptionsEnvironment>,
): { effort?: ModelEffort } & ProviderOptions {
  return {
    ...(env.CURSOR_GATEWAY_EFFORT === undefined ? {} : { effort: env.CURSOR_GATEWAY_EFFORT }),
    ...(env.CURSOR_GATEWAY_PROMPT_CACHE_RETENTION === undefined
      ? {}
      : { promptCacheRetention: env.CURSOR_GATEWAY_PROMPT_CACHE_RETENTION }),
    ...(env.CURSOR_GATEWAY_PROMPT_CACHE_TTL === undefined
      ? {}
      : { promptCacheOptions: { ttl: env.CURSOR_GATEWAY_PROMPT_CACHE_TTL } }),
    ...(env.CURSOR_GATEWAY_ANTHROPIC_STABLE_PREFIX_TTL === undefined
      ? {}
      : { stablePrefixCacheTtl: env.CURSOR_GATEWAY_ANTHROPIC_STABLE_PREFIX_TTL }),
    ...(env.CURSOR_GATEWAY_ANTHROPIC_THINKING === undefined
      ? {}
      : { thinking: env.CURSOR_GATEWAY_ANTHROPIC_THINKING }),
  };
}

/** The variable names of the settings above, for issues about the single-provider model. */
export const singleProviderOptionVariables: Readonly<Record<OptionField, string>> = {
  effort: "CURSOR_GATEWAY_EFFORT",
  promptCacheRetention: "CURSOR_GATEWAY_PROMPT_CACHE_RETENTION",
  promptCacheOptions: "CURSOR_GATEWAY_PROMPT_CACHE_TTL",
  stablePrefixCacheTtl: "CURSOR_GATEWAY_ANTHROPIC_STABLE_PREFIX_TTL",
  thinking: "CURSOR_GATEWAY_ANTHROPIC_THINKING",
};
