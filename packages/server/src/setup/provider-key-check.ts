import type { ProviderName } from "../models/model-config.js";
import type { ProviderCheck } from "../proxy/start-cursor-proxy.js";
import { redactSecrets } from "../redact-secrets.js";

export interface ProviderKeyCheckInput {
  readonly modelId: string;
  readonly provider: ProviderName;
  /** The provider's own model id (what the key must be able to use). */
  readonly model: string;
  readonly apiKey?: string;
  readonly baseURL?: string;
  readonly timeoutMs?: number;
}

interface ModelList {
  readonly ids: readonly string[];
}

/**
 * Asks the provider, through its official SDK, for the models the key may use: a call that costs
 * nothing and fails with 401/403 for a key the provider does not accept. The key is never part
 * of the answer (SDK error texts are redacted: some servers quote the key).
 */
export async function checkProviderKey(input: ProviderKeyCheckInput): Promise<ProviderCheck> {
  const { modelId, provider } = input;
  const base = { modelId, provider };
  if (provider === "simulated") {
    return {
      ...base,
      status: "warn",
      message:
        "the simulated provider (no key): set OPENAI_API_KEY or ANTHROPIC_API_KEY to use your own",
    };
  }
  if (input.apiKey === undefined) {
    return { ...base, status: "fail", message: `no key configured for ${provider}` };
  }
  const where =
    input.baseURL ?? (provider === "anthropic" ? "api.anthropic.com" : "api.openai.com");
  let list: ModelList;
  try {
    list = await listModels({ ...input, apiKey: input.apiKey });
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    const text = redactSecrets((error as Error).message ?? String(error), [input.apiKey]);
    if (status === 401 || status === 403) {
      return {
        ...base,
        status: "fail",
        message: `${where} rejected the key (HTTP ${status}): check the key`,
      };
    }
    if (typeof status === "number") {
      return {
        ...base,
        status: "fail",
        message: `${where} answered HTTP ${status} to a model list request: ${text}`,
      };
    }
    return { ...base, status: "fail", message: `cannot reach ${where}: ${text}` };
  }
  if (list.ids.length > 0 && !list.ids.includes(input.model)) {
    return {
      ...base,
      status: "warn",
      message: `${where} accepted the key, but its model list has no ${input.model} (${list.ids.length} models listed)`,
    };
  }
  return { ...base, status: "ok", message: `${where} accepted the key (model ${input.model})` };
}

async function listModels(input: ProviderKeyCheckInput & { apiKey: string }): Promise<ModelList> {
  const timeout = input.timeoutMs ?? 10_000;
  if (input.provider === "anthropic") {
    const { default: Anthropic } = await import("@anthropic-ai/sdk");
    const client = new Anthropic({
      apiKey: input.apiKey,
      maxRetries: 0,
      timeout,
      ...(input.baseURL === undefined ? {} : { baseURL: input.baseURL }),
    });
    const page = await client.models.list({ limit: 1000 });
    return { ids: page.data.map((model) => model.id) };
  }
  const { default: OpenAI } = await import("openai");
  const client = new OpenAI({
    apiKey: input.apiKey,
    maxRetries: 0,
    timeout,
    ...(input.baseURL === undefined ? {} : { baseURL: input.baseURL }),
  });
  const page = await client.models.list();
  return { ids: page.data.map((model) => model.id) };
}
