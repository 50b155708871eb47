import { canonicalJson, deepFreeze, toModelRequest } from "@cursor/run";
import type { CanonicalMessage, JsonValue, ModelRequest, ProviderAdapter } from "@cursor/run";
import fc from "fast-check";
import {
  allContentKindsConversation,
  conformancePromptSpec,
  conversationArbitrary,
} from "./conversation-arbitrary.js";
import type {
  ConversationSnapshot,
  GeneratedConversation,
  ReplayStateInput,
} from "./conversation-arbitrary.js";
import { firstDivergence, formatDivergence, pathOf } from "@cursor/fake-provider";
import { ConformanceViolationError } from "./testkit-errors.js";

export interface ProviderConformanceOptions<Body = unknown> {
  readonly adapter: ProviderAdapter<Body>;
  /** Suite title; default `<adapter.id> conformance`. */
  readonly name?: string;
  /**
   * The list that must grow append-only: Responses `body.input`, Chat `body.messages`,
   * Anthropic the flat list of content blocks over `body.messages`.
   */
  readonly historyItems: (body: Body) => readonly unknown[];
  /** Instructions + tools: must stay byte-identical while only history grows or the mode changes. */
  readonly staticParts: (body: Body) => unknown;
  /** Removes cache markers before the prefix law (markers may move). Default: identity. */
  readonly stripCacheMarkers?: (body: Body) => Body;
  /** When set, no body may carry more cache markers than this. */
  readonly maxCacheMarkers?: number;
  /** Default: counts `cache_control` keys anywhere in the body. */
  readonly countCacheMarkers?: (body: Body) => number;
  /** The adapter's own replay entry for assistant messages with reasoning (see the README). */
  readonly replayState?: (input: ReplayStateInput) => JsonValue;
  /** Model id put in generated requests. Default `test-model`. */
  readonly model?: string;
  /** fast-check runs per property (default 30) and seed (default 7): fixed, so runs repeat. */
  readonly numRuns?: number;
  readonly seed?: number;
}

/** One law as a named check that throws `ConformanceViolationError` when broken. */
export interface ConformanceLaw {
  readonly name: string;
  readonly check: () => void;
}

/** Counts `cache_control` keys anywhere in a JSON value. */
export function countCacheControlMarkers(value: unknown): number {
  if (Array.isArray(value))
    return value.reduce((sum: number, item) => sum + countCacheControlMarkers(item), 0);
  if (typeof value !== "object" || value === null) return 0;
  let count = 0;
  for (const [key, inner] of Object.entries(value)) {
    if (key === "cache_control" && inner !== undefined && inner !== null) count += 1;
    count += countCacheControlMarkers(inner);
  }
  return count;
}

/** A deep copy without `cache_control` keys (key order kept): a default `stripCacheMarkers`. */
export function stripCacheControl<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => stripCacheControl(item)) as T;
  if (typeof value !== "object" || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key !== "cache_control") copy[key] = stripCacheControl(inner);
  }
  return copy as T;
}

/** A plain (unfrozen) deep copy of a JSON-shaped value. */
const cloneJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export function createConformanceLaws<Body>(
  options: ProviderConformanceOptions<Body>,
): ConformanceLaw[] {
  const { adapter } = options;
  const model = options.model ?? "test-model";
  const runs = { numRuns: options.numRuns ?? 30, seed: options.seed ?? 7, endOnFailure: true };
  const strip = options.stripCacheMarkers ?? ((body: Body) => body);
  const countMarkers =
    options.countCacheMarkers ?? ((body: Body) => countCacheControlMarkers(body));
  const replay = {
    providerId: adapter.id,
    ...(options.replayState === undefined ? {} : { replayState: options.replayState }),
  };
  const conversations = conversationArbitrary(replay);
  const requestOf = (
    snapshot: Pick<ConversationSnapshot, "messages" | "allowedTools">,
    conversationId = "conv-conformance",
  ): ModelRequest =>
    toModelRequest({
      conversationId,
      model,
      promptSpec: conformancePromptSpec,
      messages: snapshot.messages,
      ...(snapshot.allowedTools === undefined ? {} : { allowedTools: snapshot.allowedTools }),
    });
  const serialize = (
    request: ModelRequest,
    what: string,
    law = "accepts every canonical content kind",
  ): Body => {
    try {
      return adapter.serialize(request).body;
    } catch (error) {
      throw new ConformanceViolationError({
        message: `${adapter.id}.serialize threw on ${what}: ${String(error)}`,
        law,
        cause: error,
      });
    }
  };

  const deterministic: ConformanceLaw = {
    name: "serialises deterministically (same request, same bytes)",
    check: () =>
      fc.assert(
        fc.property(conversations, (conversation) => {
          for (const snapshot of conversation.snapshots) {
            const request = requestOf(snapshot);
            const first = JSON.stringify(serialize(request, "a generated request"));
            const again = JSON.stringify(serialize(request, "a generated request"));
            // A structurally equal request built separately (other object identities).
            const copy = deepFreeze(cloneJson(request));
            const fromCopy = JSON.stringify(serialize(copy, "a copied request"));
            for (const [label, other] of [
              ["second call", again],
              ["equal copy", fromCopy],
            ] as const) {
              if (other !== first) {
                const divergence = firstDivergence(JSON.parse(first), JSON.parse(other));
                throw new ConformanceViolationError({
                  message: `bytes differ between two serialisations (${label}) at ${divergence ? formatDivergence(divergence) : "(key order)"}`,
                  law: "deterministic bytes",
                  ...(divergence ? { path: divergence.path } : {}),
                });
              }
            }
          }
        }),
        runs,
      ),
  };

  const noMutation: ConformanceLaw = {
    name: "never mutates its input (deep-frozen and structural compare)",
    check: () =>
      fc.assert(
        fc.property(conversations, (conversation) => {
          const snapshot = conversation.snapshots.at(-1)!;
          const frozen = deepFreeze(requestOf(snapshot));
          const before = canonicalJson(frozen);
          serialize(
            frozen,
            "a deep-frozen request (does it write to its input?)",
            "no input mutation",
          );
          const unfrozen = cloneJson(frozen);
          serialize(unfrozen, "an unfrozen copy", "no input mutation");
          for (const [label, value] of [
            ["frozen", frozen],
            ["unfrozen", unfrozen],
          ] as const) {
            const after = canonicalJson(value);
            if (after !== before) {
              const divergence = firstDivergence(JSON.parse(before), JSON.parse(after));
              throw new ConformanceViolationError({
                message: `serialize changed its ${label} input at ${divergence ? formatDivergence(divergence) : "?"}`,
                law: "no input mutation",
                ...(divergence ? { path: divergence.path } : {}),
              });
            }
          }
        }),
        runs,
      ),
  };

  /** Asserts `before`'s history items are an exact prefix of `after`'s. */
  const assertPrefix = (beforeBody: Body, afterBody: Body, context: string) => {
    const before = strip(beforeBody);
    const after = strip(afterBody);
    const beforeItems = options.historyItems(before);
    const afterItems = options.historyItems(after);
    for (let i = 0; i < beforeItems.length; i += 1) {
      const divergence =
        i < afterItems.length
          ? firstDivergence(
              beforeItems[i],
              afterItems[i],
              pathOf(after, afterItems[i]) ?? `historyItems[${i}]`,
            )
          : {
              path: pathOf(before, beforeItems[i]) ?? `historyItems[${i}]`,
              reason: "missing" as const,
              left: beforeItems[i],
              right: undefined,
            };
      if (divergence !== null) {
        throw new ConformanceViolationError({
          message: `history is not append-only (${context}): item ${i} of ${beforeItems.length} changed; first diverging path ${formatDivergence(divergence)}`,
          law: "prefix",
          path: divergence.path,
        });
      }
    }
  };

  const prefix: ConformanceLaw = {
    name: "keeps history append-only: each request's history is an exact prefix of the next",
    check: () =>
      fc.assert(
        fc.property(conversations, (conversation) => {
          const bodies = conversation.snapshots.map((snapshot) =>
            serialize(requestOf(snapshot), "a generated request"),
          );
          for (let k = 1; k < bodies.length; k += 1) {
            assertPrefix(
              bodies[k - 1]!,
              bodies[k]!,
              `request ${k - 1} → ${k}, after step ${describeStep(conversation, k)}`,
            );
          }
        }),
        runs,
      ),
  };

  const staticParts: ConformanceLaw = {
    name: "keeps instructions and tools byte-identical as history grows and modes switch",
    check: () =>
      fc.assert(
        fc.property(conversations, (conversation) => {
          const parts = conversation.snapshots.map((snapshot) =>
            JSON.stringify(
              options.staticParts(serialize(requestOf(snapshot), "a generated request")),
            ),
          );
          for (let k = 1; k < parts.length; k += 1) {
            if (parts[k] !== parts[0]) {
              const divergence = firstDivergence(JSON.parse(parts[0]!), JSON.parse(parts[k]!));
              throw new ConformanceViolationError({
                message: `static parts changed between request 0 and ${k} at ${divergence ? formatDivergence(divergence) : "?"}`,
                law: "stable spec",
                ...(divergence ? { path: divergence.path } : {}),
              });
            }
          }
        }),
        runs,
      ),
  };

  const laws: ConformanceLaw[] = [deterministic, noMutation, prefix, staticParts];

  if (options.maxCacheMarkers !== undefined) {
    const limit = options.maxCacheMarkers;
    laws.push({
      name: `never sends more than ${limit} cache markers`,
      check: () =>
        fc.assert(
          fc.property(conversations, (conversation) => {
            for (const [k, snapshot] of conversation.snapshots.entries()) {
              const count = countMarkers(serialize(requestOf(snapshot), "a generated request"));
              if (count > limit) {
                throw new ConformanceViolationError({
                  message: `request ${k} carries ${count} cache markers (limit ${limit})`,
                  law: "cache-marker limit",
                });
              }
            }
          }),
          runs,
        ),
    });
  }

  laws.push({
    name: "accepts every canonical content kind",
    check: () => {
      const conversation = allContentKindsConversation(replay);
      for (const [k, snapshot] of conversation.snapshots.entries()) {
        serialize(
          requestOf(snapshot),
          `content-kinds snapshot ${k} (after ${describeStep(conversation, k)})`,
        );
      }
      // History ending with an assistant message: the projection adds a transient user tail.
      serialize(
        requestOf({ messages: conversation.messages, allowedTools: undefined }),
        "a history ending with an assistant message",
      );
      for (const single of singleKindHistories(conversation.messages)) {
        serialize(
          requestOf({ messages: single.messages, allowedTools: undefined }),
          `a history with only a ${single.kind} message`,
        );
      }
      const bodies = conversation.snapshots.map((snapshot) =>
        serialize(requestOf(snapshot), "a content-kinds snapshot"),
      );
      for (let k = 1; k < bodies.length; k += 1) {
        assertPrefix(bodies[k - 1]!, bodies[k]!, `content-kinds request ${k - 1} → ${k}`);
      }
    },
  });
  return laws;
}

/**
 * Small histories that each hold one message kind: a user-side message alone; an assistant
 * message after the first turn, with the results of its tool calls.
 */
function singleKindHistories(
  all: readonly CanonicalMessage[],
): { kind: string; messages: CanonicalMessage[] }[] {
  const firstTurn = all.find((m) => m.kind === "runtime");
  const histories: { kind: string; messages: CanonicalMessage[] }[] = [];
  all.forEach((message, index) => {
    if (message.kind === "tool-result") return;
    if (message.kind !== "assistant") {
      histories.push({ kind: message.kind, messages: [message] });
      return;
    }
    const results: CanonicalMessage[] = [];
    for (let k = index + 1; k < all.length && all[k]!.kind === "tool-result"; k += 1)
      results.push(all[k]!);
    const kind =
      message.toolCalls.length > 0 ? "assistant with tool calls and their results" : "assistant";
    histories.push({ kind, messages: [...(firstTurn ? [firstTurn] : []), message, ...results] });
  });
  return histories;
}

/** `tool-round (step 4)`: what the conversation did just before a snapshot. */
function describeStep(conversation: GeneratedConversation, snapshotIndex: number): string {
  const step = conversation.snapshots[snapshotIndex]?.afterStep ?? -1;
  return `${conversation.steps[step]?.kind ?? "?"} (step ${step})`;
}
