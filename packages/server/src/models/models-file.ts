import { requestLimits } from "@cursor/request";
import { z } from "zod";
import { readJsonConfigFile } from "../json-config-file.js";
import { modelEfforts, providerNames } from "./model-config.js";
import type { ModelConfig } from "./model-config.js";
import { providerOptionIssues, providerOptionsShape } from "./provider-options.js";

/** A provider base URL: http or https only. */
export const httpURLSchema = z.url({ protocol: /^https?$/, error: "an http(s) URL" });

const modelEntrySchema = z.strictObject({
  id: z
    .string()
    .min(1, "must not be empty")
    .max(requestLimits.maxModelLength, `at most ${requestLimits.maxModelLength} characters`)
    .regex(/^[\x21-\x7e]+$/, "printable ASCII without spaces (a request's `model` names it)"),
  displayName: z.string().trim().min(1, "must not be empty").max(200, "at most 200 characters"),
  provider: z.enum(providerNames),
  model: z.string().trim().min(1, "must not be empty").max(256, "at most 256 characters"),
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "the name of an environment variable")
    .optional(),
  baseURL: httpURLSchema.optional(),
  effort: z.enum(modelEfforts).optional(),
  ...providerOptionsShape,
});

const modelsFileSchema = z.strictObject({
  models: z.array(modelEntrySchema).min(1, "at least one model"),
});

export type ModelsFileResult =
  | { readonly success: true; readonly models: readonly [ModelConfig, ...ModelConfig[]] }
  | { readonly success: false; readonly issues: readonly string[] };

/**
 * Reads `CURSOR_GATEWAY_MODELS_FILE` (cursor-wire.md "Models"): `{"models": [{id, displayName,
 * provider, model, apiKeyEnv, baseURL?, effort?}]}`. Each problem is reported with the file, the
 * entry and the field. Keys come from the environment variables the entries name, so they are
 * never in the file; no message ever contains a key or the file's text.
 */
export function readModelsFile({
  path,
  environment,
}: {
  path: string;
  environment: Record<string, string | undefined>;
}): ModelsFileResult {
  const read = readJsonConfigFile({
    path,
    variable: "CURSOR_GATEWAY_MODELS_FILE",
    schema: modelsFileSchema,
  });
  if (!read.success) return read;
  const { data, where } = read;
  const issues: string[] = [];
  const firstIndexById = new Map<string, number>();
  const models = data.models.map((entry, index): ModelConfig => {
    const at = `${where}: models[${index}]`;
    const earlier = firstIndexById.get(entry.id);
    if (earlier === undefined) firstIndexById.set(entry.id, index);
    else issues.push(`${at}.id: "${entry.id}" is already the id of models[${earlier}]`);
    let apiKey: string | undefined;
    if (entry.apiKeyEnv === undefined) {
      if (entry.provider !== "simulated") {
        issues.push(`${at}.apiKeyEnv: required for provider ${entry.provider}`);
      }
    } else {
      apiKey = environment[entry.apiKeyEnv]?.trim() || undefined;
      if (apiKey === undefined) {
        issues.push(`${at}.apiKeyEnv: the environment variable ${entry.apiKeyEnv} is not set`);
      }
    }
    const { promptCacheRetention, promptCacheOptions, stablePrefixCacheTtl, thinking } = entry;
    const options = {
      ...(promptCacheRetention === undefined ? {} : { promptCacheRetention }),
      ...(promptCacheOptions === undefined ? {} : { promptCacheOptions }),
      ...(stablePrefixCacheTtl === undefined ? {} : { stablePrefixCacheTtl }),
      ...(thinking === undefined ? {} : { thinking }),
    };
    issues.push(
      ...providerOptionIssues({
        name: (field) => `${at}.${field}`,
        provider: entry.provider,
        effort: entry.effort,
        options,
      }),
    );
    return {
      id: entry.id,
      displayName: entry.displayName,
      provider: entry.provider,
      model: entry.model,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(entry.baseURL === undefined ? {} : { baseURL: entry.baseURL }),
      ...(entry.effort === undefined ? {} : { effort: entry.effort }),
      ...options,
    };
  });
  if (issues.length > 0) return { success: false, issues };
  return { success: true, models: models as [ModelConfig, ...ModelConfig[]] };
}
