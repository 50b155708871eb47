import { z } from "zod";

/** One function call the fake model makes. `arguments` is sent verbatim as the JSON text. */
export interface FakeToolCall {
  readonly name: string;
  readonly arguments: string;
  /** The provider call id; generated (`call_…` / `toolu_…`) when omitted. */
  readonly callId?: string;
}

/**
 * What the fake provider answers to one request. Every variant works on all three APIs; the
 * server renders it in each API's own wire format (streaming and non-streaming).
 */
export type FakeReply =
  /**
   * A text answer, streamed in `chunks` deltas (default: up to 3). `phase` labels the Responses
   * message item (gpt-5.3-codex and later send it); the other APIs ignore it.
   */
  | {
      readonly type: "text";
      readonly text: string;
      readonly chunks?: number;
      readonly phase?: FakePhase;
    }
  /** Function calls (parallel when more than one), optionally after some text. */
  | {
      readonly type: "tool-calls";
      readonly calls: readonly FakeToolCall[];
      readonly text?: string;
      readonly phase?: FakePhase;
    }
  /**
   * The output limit ran out (after `text`, possibly empty): Responses `incomplete` with
   * `max_output_tokens`, Chat `finish_reason: "length"`, Anthropic `stop_reason: "max_tokens"`.
   * After a `reasoning` reply and with no text, this is a thinking-only reply.
   */
  | { readonly type: "length"; readonly text?: string }
  /**
   * A separate commentary message before another reply: on Responses a message item with
   * `phase: "commentary"` (the answer after it keeps its own item); on Chat and Anthropic the
   * text comes first in the answer's text.
   */
  | { readonly type: "commentary"; readonly text: string; readonly then: FakeReply }
  /**
   * Reasoning before another reply. OpenAI Responses: a reasoning item with a summary and
   * `encrypted_content`; Anthropic: a `thinking` block whose signature binds the history before
   * it (or a `redacted_thinking` block when `redacted`); Chat Completions: reasoning tokens only.
   */
  | {
      readonly type: "reasoning";
      readonly reasoning: string;
      readonly redacted?: boolean;
      /** Streamed in this many summary / thinking deltas (default 2). */
      readonly chunks?: number;
      readonly then: FakeReply;
    }
  /** A safety refusal (Responses refusal part, Chat `refusal`, Anthropic `stop_reason: refusal`). */
  | { readonly type: "refusal"; readonly text: string }
  /** The API's own "prompt is too long" error (status and body shape of the real API). */
  | { readonly type: "context-overflow" }
  /**
   * An HTTP error in the API's own error shape; `retry-after` is sent when given. `code` replaces
   * the API's own code for the status (e.g. `insufficient_quota` on a 429).
   */
  | {
      readonly type: "error";
      readonly status: FakeErrorStatus;
      readonly retryAfterSeconds?: number;
      readonly message?: string;
      readonly code?: string;
    }
  /**
   * Recorded stream events sent verbatim, for a streaming request only (a fixture of the
   * provider's documented event format): Responses and Anthropic events are named by their
   * `type`; Chat events are data-only chunks followed by `data: [DONE]`. The request is still
   * validated and simulated; its recorded `usage` is null (the events carry their own).
   */
  | { readonly type: "stream"; readonly events: readonly unknown[] }
  /** Sends the first `afterEvents` stream events of `reply`, then destroys the connection. */
  | { readonly type: "cut"; readonly afterEvents: number; readonly reply: FakeReply }
  /** Waits `delayMsPerEvent` before every stream event of `reply`. */
  | { readonly type: "slow"; readonly delayMsPerEvent: number; readonly reply: FakeReply };

export const fakeErrorStatuses = [401, 402, 403, 404, 408, 413, 429, 500, 503, 529] as const;
export type FakeErrorStatus = (typeof fakeErrorStatuses)[number];

export const fakePhases = ["commentary", "final_answer"] as const;
export type FakePhase = (typeof fakePhases)[number];
const phaseSchema = z.enum(fakePhases);

const fakeToolCallSchema = z.object({
  name: z.string().min(1),
  arguments: z.string(),
  callId: z.string().min(1).optional(),
});

/** Validates replies that arrive over HTTP (`POST /_fake/enqueue`) or from untyped callers. */
export const fakeReplySchema: z.ZodType<FakeReply> = z.lazy(() =>
  z.discriminatedUnion("type", [
    z.object({
      type: z.literal("text"),
      text: z.string(),
      chunks: z.number().int().min(1).optional(),
      phase: phaseSchema.optional(),
    }),
    z.object({
      type: z.literal("tool-calls"),
      calls: z.array(fakeToolCallSchema).min(1),
      text: z.string().optional(),
      phase: phaseSchema.optional(),
    }),
    z.object({ type: z.literal("length"), text: z.string().optional() }),
    z.object({ type: z.literal("commentary"), text: z.string().min(1), then: fakeReplySchema }),
    z.object({
      type: z.literal("reasoning"),
      reasoning: z.string(),
      redacted: z.boolean().optional(),
      chunks: z.number().int().min(1).optional(),
      then: fakeReplySchema,
    }),
    z.object({ type: z.literal("refusal"), text: z.string() }),
    z.object({ type: z.literal("context-overflow") }),
    z.object({
      type: z.literal("error"),
      status: z.union(fakeErrorStatuses.map((status) => z.literal(status))),
      retryAfterSeconds: z.number().min(0).optional(),
      message: z.string().optional(),
      code: z.string().min(1).optional(),
    }),
    z.object({ type: z.literal("stream"), events: z.array(z.unknown()).min(1) }),
    z.object({
      type: z.literal("cut"),
      afterEvents: z.number().int().min(0),
      reply: fakeReplySchema,
    }),
    z.object({
      type: z.literal("slow"),
      delayMsPerEvent: z.number().min(0),
      reply: fakeReplySchema,
    }),
  ]),
);

/** A reasoning step of a normalised reply. */
export interface ReasoningStep {
  readonly reasoning: string;
  readonly redacted: boolean;
  /** Deltas the reasoning is streamed in. */
  readonly chunks: number;
}

/** The answer a model produces once transport wrappers and reasoning are unwrapped. */
export type FinalAnswer =
  | {
      readonly type: "text";
      readonly text: string;
      readonly chunks: number;
      readonly phase: FakePhase | undefined;
    }
  | {
      readonly type: "tool-calls";
      readonly calls: readonly FakeToolCall[];
      readonly text: string;
      readonly phase: FakePhase | undefined;
    }
  | { readonly type: "length"; readonly text: string }
  | { readonly type: "refusal"; readonly text: string };

/** A reply reduced to what the wire renderers need. */
export type NormalizedReply =
  | { readonly kind: "context-overflow" }
  | {
      readonly kind: "error";
      readonly status: FakeErrorStatus;
      readonly retryAfterSeconds: number | undefined;
      readonly message: string | undefined;
      readonly code: string | undefined;
    }
  | {
      readonly kind: "stream";
      readonly events: readonly unknown[];
      readonly cutAfterEvents: number | undefined;
      readonly delayMsPerEvent: number;
    }
  | {
      readonly kind: "answer";
      readonly reasoning: readonly ReasoningStep[];
      /** Commentary messages before the answer, in order. */
      readonly commentary: readonly string[];
      readonly answer: FinalAnswer;
      /** Destroy the connection after this many stream events (undefined: never). */
      readonly cutAfterEvents: number | undefined;
      readonly delayMsPerEvent: number;
    };

const defaultChunks = (text: string): number => Math.max(1, Math.min(3, text.length));

/**
 * Unwraps `cut` / `slow` (outermost wins for each) and `reasoning` chains into one plan. An error
 * anywhere in the chain wins: the request fails before anything is streamed.
 */
export function normalizeReply(reply: FakeReply): NormalizedReply {
  const reasoning: ReasoningStep[] = [];
  const commentary: string[] = [];
  let cutAfterEvents: number | undefined;
  let delayMsPerEvent = 0;
  let current: FakeReply = reply;
  for (;;) {
    switch (current.type) {
      case "cut":
        cutAfterEvents ??= current.afterEvents;
        current = current.reply;
        continue;
      case "slow":
        delayMsPerEvent = delayMsPerEvent === 0 ? current.delayMsPerEvent : delayMsPerEvent;
        current = current.reply;
        continue;
      case "reasoning":
        reasoning.push({
          reasoning: current.reasoning,
          redacted: current.redacted ?? false,
          chunks: current.chunks ?? 2,
        });
        current = current.then;
        continue;
      case "commentary":
        commentary.push(current.text);
        current = current.then;
        continue;
      case "context-overflow":
        return { kind: "context-overflow" };
      case "error":
        return {
          kind: "error",
          status: current.status,
          retryAfterSeconds: current.retryAfterSeconds,
          message: current.message,
          code: current.code,
        };
      case "stream":
        return { kind: "stream", events: current.events, cutAfterEvents, delayMsPerEvent };
      case "text":
        return {
          kind: "answer",
          reasoning,
          commentary,
          answer: {
            type: "text",
            text: current.text,
            chunks: current.chunks ?? defaultChunks(current.text),
            phase: current.phase,
          },
          cutAfterEvents,
          delayMsPerEvent,
        };
      case "tool-calls":
        return {
          kind: "answer",
          reasoning,
          commentary,
          answer: {
            type: "tool-calls",
            calls: current.calls,
            text: current.text ?? "",
            phase: current.phase,
          },
          cutAfterEvents,
          delayMsPerEvent,
        };
      case "length":
        return {
          kind: "answer",
          reasoning,
          commentary,
          answer: { type: "length", text: current.text ?? "" },
          cutAfterEvents,
          delayMsPerEvent,
        };
      case "refusal":
        return {
          kind: "answer",
          reasoning,
          commentary,
          answer: { type: "refusal", text: current.text },
          cutAfterEvents,
          delayMsPerEvent,
        };
      default: {
        const exhaustive: never = current;
        throw new Error(`unknown fake reply ${JSON.stringify(exhaustive)}`);
      }
    }
  }
}

/** Splits text into `chunks` nearly equal pieces (code points kept whole); never returns none. */
export function splitText(text: string, chunks: number): string[] {
  const codePoints = Array.from(text);
  const count = Math.max(1, Math.min(chunks, codePoints.length));
  if (codePoints.length === 0) return [""];
  const size = Math.ceil(codePoints.length / count);
  const pieces: string[] = [];
  for (let i = 0; i < codePoints.length; i += size)
    pieces.push(codePoints.slice(i, i + size).join(""));
  return pieces;
}
