import { withoutCacheControl } from "@cursor/fake-provider";
import { forEachHistoryItem } from "../providers/provider-history-items.js";
import { chainLink, LinkChain } from "./link-chain.js";
import type { LinkView } from "./link-chain.js";
import { cacheNamespaceFields, isRecord } from "./provider-body.js";
import type { ProviderFormat } from "./provider-body.js";

/**
 * A body's prompt as the prefix doctor segments it, reduced to a sha256 chain: link 0 covers the
 * preamble (the cache namespace, tools, structured-output schema, instructions or system), link
 * i + 1 link i and history item i (Anthropic blocks without their cache markers). Two prompts
 * share their first n history items and preamble exactly when their links n are equal, so a
 * later call is checked against an earlier one from the earlier one's last link alone: O(1)
 * bytes kept per call, and no token counting (the doctor counts tokens only where a prefix
 * broke). Provider packages share their frozen history items between calls, so the links of a
 * conversation's last prompt are remembered with its items (`LinkChain`, one per conversation):
 * a call hashes only the items the history added since the previous call, not the whole body
 * again.
 */
export class PromptFingerprint {
  /** Items of the append-only list. */
  readonly historyItems: number;
  /** `links[historyItems]`, hex. */
  readonly digest: string;
  readonly #links: LinkView;

  constructor(links: LinkView) {
    this.#links = links;
    this.historyItems = links.length - 1;
    this.digest = links.at(links.length - 1)!;
  }

  /** Link k, hex (undefined past the end): it covers the preamble and the first k items. */
  linkAt(k: number): string | undefined {
    return this.#links.at(k);
  }

  /** Every link, hex (built on each read: `linkAt` reads one). */
  get links(): readonly string[] {
    return Array.from({ length: this.#links.length }, (_, k) => this.#links.at(k)!);
  }
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

// One chain per conversation, keyed by the body's first frozen history item (the provider
// package's item of the conversation's first message): it lives as long as that item does, that
// is as long as the conversation's head holds its messages.
const chains = new WeakMap<object, LinkChain>();

const isFrozenObject = (value: unknown): value is object =>
  typeof value === "object" && value !== null && Object.isFrozen(value);

export function promptFingerprint({
  body,
  format,
}: {
  body: unknown;
  format: ProviderFormat;
}): PromptFingerprint {
  const record = isRecord(body) ? body : {};
  const preambleLink = chainLink("", preambleJson(preamble(record, format)));
  const sources: unknown[] = [];
  const roles: unknown[] = [];
  const items: (() => unknown)[] = [];
  let hasRoles = false;
  forEachHistoryItem(record, (source, role, item) => {
    sources.push(source);
    roles.push(role);
    items.push(item);
    hasRoles ||= role !== undefined;
  });
  const key = sources.find(isFrozenObject);
  let chain = key === undefined ? undefined : chains.get(key);
  if (chain === undefined) {
    chain = new LinkChain();
    if (key !== undefined) chains.set(key, chain);
  }
  const links = chain.link({
    preamble: preambleLink,
    sources,
    roles: hasRoles ? roles : undefined,
    item: (index) => JSON.stringify(items[index]!()) ?? "null",
  });
  return new PromptFingerprint(links);
}

/** True when `current` starts with the whole prompt `previous` fingerprinted. */
export function extendsPrompt(
  current: PromptFingerprint,
  previous: { readonly historyItems: number; readonly digest: string },
): boolean {
  return current.linkAt(previous.historyItems) === previous.digest;
}
