import type { ContentPart, ImagePart, JsonValue, ToolCall } from "./canonical-message.js";
import type { ToolSpec } from "./prompt-spec.js";

/** Where a projected user message came from; providers may render sources differently. */
export type ModelUserSource = "request-context" | "runtime" | "summary" | "user" | "tail";

export interface ModelUserMessage {
  readonly role: "user";
  /** Canonical message id; `tail` for the transient continuation message. */
  readonly id: string;
  readonly source: ModelUserSource;
  readonly content: readonly ContentPart[];
}

export interface ModelAssistantMessage {
  readonly role: "assistant";
  readonly id: string;
  readonly text: string;
  readonly reasoning: string;
  /** Sorted by `index`. */
  readonly toolCalls: readonly ToolCall[];
  /** Opaque replay state keyed by provider id; a provider replays only its own entry. */
  readonly replay: Readonly<Record<string, JsonValue>>;
}

export interface ModelToolMessage {
  readonly role: "tool";
  readonly id: string;
  readonly callId: string;
  readonly name: string;
  /** Possibly truncated for the request; the stored result stays whole. */
  readonly content: string;
  readonly isError: boolean;
  readonly image?: ImagePart;
}

export type ModelMessage = ModelUserMessage | ModelAssistantMessage | ModelToolMessage;

/**
 * The provider-neutral request for one model call. Deeply frozen: a provider adapter can read
 * it but never change canonical history through it.
 */
export interface ModelRequest {
  /** Stable per conversation; providers derive cache keys from it (and `cacheScope`). */
  readonly conversationId: string;
  /**
   * Opaque; separates provider prompt caches that must not be shared (the gateway's tenant):
   * providers derive their cache keys from it together with `conversationId` (hashed, never
   * sent as it is). Absent: one scope.
   */
  readonly cacheScope?: string;
  readonly model: string;
  readonly instructions: string;
  readonly tools: readonly ToolSpec[];
  /** Tools the current mode may call; providers map this to native allowed-tool settings. */
  readonly allowedTools?: readonly string[];
  readonly messages: readonly ModelMessage[];
  readonly promptSpecDigest: string;
  readonly maxOutputTokens?: number;
}
