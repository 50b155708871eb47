import type { RecordedRequest } from "@cursor/testkit";
import { firstDivergence, formatDivergence } from "@cursor/testkit";

export type WireApi = "openai-responses" | "openai-chat" | "anthropic";

type JsonObject = Record<string, unknown>;

function asObject(value: unknown, what: string): JsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`${what} is not a JSON object`);
  }
  return value as JsonObject;
}

function withoutCacheControl(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const { cache_control: _marker, ...rest } = value as JsonObject;
  return rest;
}

/**
 * The list of a wire body that must only grow (docs/architecture.md invariant 1): Responses `input`,
 * Chat `messages`, Anthropic content blocks (each with its message's role) minus `cache_control`.
 * Written here independently of the gateway's own `providerHistoryItems`.
 */
export function historyItems(api: WireApi, body: unknown): unknown[] {
  const record = asObject(body, `${api} body`);
  switch (api) {
    case "openai-responses":
      return record.input as unknown[];
    case "openai-chat":
      return record.messages as unknown[];
    case "anthropic": {
      const blocks: unknown[] = [];
      for (const message of record.messages as JsonObject[]) {
        const content = message.content;
        const list = typeof content === "string" ? [{ type: "text", text: content }] : content;
        for (const block of list as unknown[]) {
          blocks.push({ role: message.role, block: withoutCacheControl(block) });
        }
      }
      return blocks;
    }
    default: {
      const exhaustive: never = api;
      throw new Error(`unknown api ${String(exhaustive)}`);
    }
  }
}

/** What must stay byte-identical while its inputs do: instructions / system and tools. */
export function staticParts(api: WireApi, body: unknown): unknown {
  const record = asObject(body, `${api} body`);
  switch (api) {
    case "openai-responses":
      return { instructions: record.instructions, tools: record.tools };
    case "openai-chat":
      // The instructions are the first message, covered by the history prefix.
      return { tools: record.tools };
    case "anthropic":
      return {
        system: Array.isArray(record.system)
          ? record.system.map(withoutCacheControl)
          : record.system,
        tools: Array.isArray(record.tools) ? record.tools.map(withoutCacheControl) : record.tools,
      };
    default: {
      const exhaustive: never = api;
      throw new Error(`unknown api ${String(exhaustive)}`);
    }
  }
}

/**
 * Every violation of the prefix invariant in a chain of bodies of one epoch: each body's history
 * items must be an exact prefix of the next one's (compared by their JSON bytes, key order
 * included), and the static parts byte-identical. Empty when the chain is append-only.
 */
export function prefixViolations(api: WireApi, bodies: readonly unknown[]): string[] {
  const violations: string[] = [];
  for (let index = 1; index < bodies.length; index += 1) {
    const previous = historyItems(api, bodies[index - 1]);
    const current = historyItems(api, bodies[index]);
    if (current.length < previous.length) {
      violations.push(
        `body ${index}: ${current.length} history items, fewer than the ${previous.length} before`,
      );
      continue;
    }
    for (let item = 0; item < previous.length; item += 1) {
      if (JSON.stringify(previous[item]) !== JSON.stringify(current[item])) {
        const divergence = firstDivergence(previous[item], current[item], `items[${item}]`);
        violations.push(
          `body ${index}: history item ${item} changed: ${divergence === null ? "(bytes)" : formatDivergence(divergence)}`,
        );
        break;
      }
    }
    const before = JSON.stringify(staticParts(api, bodies[index - 1]));
    const after = JSON.stringify(staticParts(api, bodies[index]));
    if (before !== after) {
      const divergence = firstDivergence(
        staticParts(api, bodies[index - 1]),
        staticParts(api, bodies[index]),
      );
      violations.push(
        `body ${index}: static parts changed: ${divergence === null ? "(bytes)" : formatDivergence(divergence)}`,
      );
    }
  }
  return violations;
}

/**
 * Requests whose cached tokens fall short of the best possible (every request after the first
 * of its cache namespace, i.e. every append turn), or whose cache simulation found a divergence.
 */
export function cacheShortfalls(requests: readonly RecordedRequest[]): string[] {
  const shortfalls: string[] = [];
  requests.forEach((request, index) => {
    if (request.cache === null || request.usage === null) {
      shortfalls.push(`request ${index}: no usage (status ${request.status})`);
      return;
    }
    if (!request.cache.pureAppend) {
      shortfalls.push(
        `request ${index}: not a pure append (diverges at ${request.cache.divergence?.label})`,
      );
    }
    if (request.usage.cachedInputTokens !== request.cache.bestPossibleCachedTokens) {
      shortfalls.push(
        `request ${index}: cached ${request.usage.cachedInputTokens} of ${request.cache.bestPossibleCachedTokens} possible`,
      );
    }
  });
  return shortfalls;
}

/** Bodies as JSON text, for exact comparisons between two runs of one script. */
export function bodyTexts(requests: readonly RecordedRequest[]): string[] {
  return requests.map((request) => JSON.stringify(request.body));
}
