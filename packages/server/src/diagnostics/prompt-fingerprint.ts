import { createHash } from "node:crypto";
import { withoutCacheControl } from "@cursor/fake-provider";
import { providerHistoryItems } from "../providers/provider-history-items.js";
import { cacheNamespaceFields, isRecord } from "./provider-body.js";
import type { ProviderFormat } from "./provider-body.js";

/**
 * A body's prompt as the prefix doctor segments it, reduced to a sha256 chain: link 0 covers the
 * preamble (the cache namespace, tools, structured-output schema, instructions or system), link
 * i + 1 link i and history item i (Anthropic blocks without their cache markers). Two prompts
 * share their first n history items and preamble exactly when their links n are equal, so a
 * later call is checked against an earlier one from the earlier one's last link alone: O(1)
 * bytes kept per call, O(body) hashing per call, and no token counting (the doctor counts
 * tokens only where a prefix broke).
 */
export interface PromptFingerprint {
  /** Items of the append-only list. */
  readonly historyItems: number;
  /** `links[historyItems]`, hex. */
  readonly digest: string;
  /** Every link, hex: `links[k]` covers the preamble and the first k items. */
  readonly links: readonly string[];
}

/** What precedes the history in the prefix (the doctor's segments before the first item). */
function preamble(body: Record<string, unknown>, format: ProviderFormat): unknown[] {
  const namespace = cacheNamespaceFields(body, format);
  switch (format) {
    case "openai-responses": {
      const schema = isRecord(body.text) ? body.text.format : undefined;
      return [
        namespace,
        body.tools ?? null,
        isRecord(schema) && schema.type === "json_schema" ? schema : null,
        typeof body.instructions === "string" ? body.instructions : null,
      ];
    }
    case "openai-chat": {
      const schema = body.response_format;
      return [
        namespace,
        body.tools ?? null,
        isRecord(schema) && schema.type === "json_schema" ? schema : null,
      ];
    }
    case "anthropic":
      return [
        namespace,
        Array.isArray(body.tools) ? body.tools.map(withoutCacheControl) : null,
        Array.isArray(body.system) ? body.system.map(withoutCacheControl) : (body.system ?? null),
      ];
    default: {
      const exhaustive: never = format;
      throw new Error(`unknown provider format ${String(exhaustive)}`);
    }
  }
}

const link = (previous: string, bytes: string) =>
  createHash("sha256").update(previous).update("\n").update(bytes).digest("hex");

export function promptFingerprint({
  body,
  format,
}: {
  body: unknown;
  format: ProviderFormat;
}): PromptFingerprint {
  const record = isRecord(body) ? body : {};
  const links = [link("", JSON.stringify(preamble(record, format)))];
  for (const item of providerHistoryItems(record)) {
    links.push(link(links[links.length - 1]!, JSON.stringify(item) ?? "null"));
  }
  return { historyItems: links.length - 1, digest: links[links.length - 1]!, links };
}

/** True when `current` starts with the whole prompt `previous` fingerprinted. */
export function extendsPrompt(
  current: PromptFingerprint,
  previous: { readonly historyItems: number; readonly digest: string },
): boolean {
  return current.links[previous.historyItems] === previous.digest;
}
