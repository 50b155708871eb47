import { createHash } from "node:crypto";
import { withoutCacheControl } from "@cursor/fake-provider";
import { forEachHistoryItem } from "../providers/provider-history-items.js";
import { cacheNamespaceFields, isRecord } from "./provider-body.js";
import type { ProviderFormat } from "./provider-body.js";

/**
 * A body's prompt as the prefix doctor segments it, reduced to a sha256 chain: link 0 covers the
 * preamble (the cache namespace, tools, structured-output schema, instructions or system), link
 * i + 1 link i and history item i (Anthropic blocks without their cache markers). Two prompts
 * share their first n history items and preamble exactly when their links n are equal, so a
 * later call is checked against an earlier one from the earlier one's last link alone: O(1)
 * bytes kept per call, and no token counting (the doctor counts tokens only where a prefix
 * broke). Provider packages share their frozen history items between calls, so a link is
 * remembered per frozen item (with the link before it): a call hashes only the items the history
 * added since the previous call, not the whole body again.
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

// JSON of frozen objects (a provider package's tool definitions, shared by every body): the
// preamble is stringified from them without walking every tool schema again on each call.
const jsonTexts = new WeakMap<object, string>();

function jsonOf(value: unknown): string {
  if (typeof value === "object" && value !== null && Object.isFrozen(value)) {
    const known = jsonTexts.get(value);
    if (known !== undefined) return known;
    const text = JSON.stringify(value);
    jsonTexts.set(value, text);
    return text;
  }
  // As inside an array: `undefined` (and what JSON cannot hold) is `null`.
  return JSON.stringify(value) ?? "null";
}

/** `JSON.stringify(parts)`, byte for byte, with the arrays' frozen elements remembered. */
function preambleJson(parts: readonly unknown[]): string {
  const part = (value: unknown) =>
    Array.isArray(value) ? `[${value.map(jsonOf).join(",")}]` : jsonOf(value);
  return `[${parts.map(part).join(",")}]`;
}

const link = (previous: string, bytes: string) =>
  createHash("sha256").update(previous).update("\n").update(bytes).digest("hex");

/** The link a frozen item made after `previous` (an Anthropic block: within a `role`). */
interface RememberedLink {
  readonly previous: string;
  readonly role: unknown;
  readonly link: string;
}

// Keyed by the provider package's frozen item objects: they live as long as a body or the
// package's conversion cache holds them, and a frozen item's JSON never changes.
const rememberedLinks = new WeakMap<object, RememberedLink>();

/**
 * The next link: remembered when `source` is a frozen object already linked after `previous`,
 * else hashed from `item()` (the item as the doctor segments it) and remembered.
 */
function nextLink({
  previous,
  source,
  role,
  item,
}: {
  previous: string;
  source: unknown;
  role: unknown;
  item: () => unknown;
}): string {
  const frozen = typeof source === "object" && source !== null && Object.isFrozen(source);
  if (frozen) {
    const known = rememberedLinks.get(source);
    if (known !== undefined && known.previous === previous && known.role === role) {
      return known.link;
    }
  }
  const made = link(previous, JSON.stringify(item()) ?? "null");
  if (frozen) rememberedLinks.set(source, { previous, role, link: made });
  return made;
}

export function promptFingerprint({
  body,
  format,
}: {
  body: unknown;
  format: ProviderFormat;
}): PromptFingerprint {
  const record = isRecord(body) ? body : {};
  const links = [link("", preambleJson(preamble(record, format)))];
  forEachHistoryItem(record, (source, role, item) => {
    links.push(nextLink({ previous: links[links.length - 1]!, source, role, item }));
  });
  return { historyItems: links.length - 1, digest: links[links.length - 1]!, links };
}

/** True when `current` starts with the whole prompt `previous` fingerprinted. */
export function extendsPrompt(
  current: PromptFingerprint,
  previous: { readonly historyItems: number; readonly digest: string },
): boolean {
  return current.links[previous.historyItems] === previous.digest;
}
