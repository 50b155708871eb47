import type { JsonRecord, RenderedPrompt } from "./wire-api.js";

const minutes30 = 30 * 60 * 1000;
const hours24 = 24 * 60 * 60 * 1000;

const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** True when any content part of the body carries a `prompt_cache_breakpoint`. */
function hasBreakpoint(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasBreakpoint);
  if (!isRecord(value)) return false;
  if (isRecord(value.prompt_cache_breakpoint)) return true;
  return Object.values(value).some(hasBreakpoint);
}

// GPT-5.6 and later bill cache writes (1.25×) and report them as `cache_write_tokens`.
const cacheWriteModels = /^(?:gpt-5\.(?:[6-9]|\d{2,})|gpt-(?:[6-9]|\d{2,}))/;

/**
 * What an OpenAI body (Responses or Chat) asks of the cache: `prompt_cache_retention: "24h"`
 * keeps entries a day; `prompt_cache_options.ttl: "30m"` at least 30 minutes (the longer of the
 * two wins, since the API treats them as independent); `prompt_cache_options.mode: "explicit"`
 * without any `prompt_cache_breakpoint` turns caching off (with breakpoints the simulation
 * treats it like the implicit mode). Models from GPT-5.6 on, and any body with
 * `prompt_cache_options`, report cache writes.
 */
export function openAICacheSettings(
  body: JsonRecord,
): Pick<RenderedPrompt, "ttlMs" | "noCaching" | "reportsCacheWrites"> {
  const options = isRecord(body.prompt_cache_options) ? body.prompt_cache_options : undefined;
  const lifetimes = [
    body.prompt_cache_retention === "24h" ? hours24 : undefined,
    options?.ttl === "30m" ? minutes30 : undefined,
  ].filter((value): value is number => value !== undefined);
  const explicitWithoutBreakpoints = options?.mode === "explicit" && !hasBreakpoint(body);
  const reportsCacheWrites =
    options !== undefined ||
    cacheWriteModels.test(typeof body.model === "string" ? body.model : "");
  return {
    ...(lifetimes.length === 0 ? {} : { ttlMs: Math.max(...lifetimes) }),
    ...(explicitWithoutBreakpoints ? { noCaching: true } : {}),
    ...(reportsCacheWrites ? { reportsCacheWrites: true } : {}),
  };
}
