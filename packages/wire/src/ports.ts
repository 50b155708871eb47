import type { ConversationHead, TurnRecord } from "@cursor/projection";
import type { AgentRunRequest } from "@cursor/request";
import type { HistoryLog, PendingToolCall, Usage, Warning } from "@cursor/run";

/**
 * The JSON-contract agent run request the wire hands to the conversation service (the body of
 * `POST /v1/runs`; `parseAgentRunRequest` accepts it).
 */
export type AgentRunRequestJson = AgentRunRequest;

/**
 * A head rebuilt from a Cursor conversation state the store does not know. Already verified by
 * the wire: the state's MAC, every blob's SHA-256, the history's digest chain.
 */
export interface HydratedHeadLike {
  readonly history: HistoryLog;
  readonly turns: readonly TurnRecord[];
  readonly lastRunId?: string | undefined;
}

/** What the conversation service streams while a run executes (SEAM.md `RunEvent`). */
export type WireRunEvent =
  | {
      readonly type: "run.started";
      readonly conversationId: string;
      readonly runId: string;
      readonly epoch: number;
    }
  | { readonly type: "text.delta"; readonly text: string }
  | { readonly type: "reasoning.delta"; readonly text: string }
  | {
      readonly type: "tool.call";
      readonly callId: string;
      readonly name: string;
      readonly arguments: string;
    }
  | { readonly type: "usage"; readonly usage: Usage }
  /** A compaction is about to call the summariser; `compaction` follows once its epoch is stored. */
  | { readonly type: "compaction.started"; readonly reason: "auto" | "manual" }
  | { readonly type: "compaction"; readonly reason: "auto" | "manual"; readonly epoch: number }
  /** Something in the provider's stream was skipped (informational; logged, not shown). */
  | { readonly type: "warning"; readonly warning: Warning }
  | {
      readonly type: "retry";
      readonly attempt: number;
      readonly delayMs: number;
      readonly error: { readonly code: string; readonly message: string };
    }
  /**
   * After every store commit that moved the head, and once more (`final: true`) just before
   * `run.ended` when the conversation is stored. `pendingToolCalls`: the head's open round.
   */
  | {
      readonly type: "head";
      readonly head: ConversationHead;
      readonly pendingToolCalls: readonly PendingToolCall[];
      readonly final: boolean;
    }
  | {
      readonly type: "run.ended";
      readonly reason: WireRunEndReason;
      readonly error?: WireRunError | undefined;
    };

export type WireRunEndReason = "completed" | "awaiting-tools" | "cancelled" | "failed";

export interface WireRunError {
  /** The loop's stable code (`provider_error`, `rate_limited`, `context_overflow`, …). */
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
}

/** How a run ended: the same reason and error as its `run.ended` event. */
export interface WireRunOutcome {
  readonly reason: WireRunEndReason;
  readonly error?: WireRunError | undefined;
}

export interface WireRunSink {
  event(event: WireRunEvent): void;
}

export interface WirePreparedRun {
  execute(sink: WireRunSink): Promise<WireRunOutcome>;
}

/** One BYOK model as the IDE's picker shows it; the first is the default. */
export interface WireModel {
  /** The id the IDE sends back in `requested_model.model_id`. */
  readonly id: string;
  readonly displayName: string;
  /** `openai-responses`, `openai-chat`, `anthropic`, `simulated`: only shown in the tooltip. */
  readonly provider?: string | undefined;
  /** The model's context window (the IDE's context gauge); 200 000 when unknown. */
  readonly contextWindowTokens?: number | undefined;
}

/** Where the wire reports what it cannot answer to the IDE. Never handed a secret. */
export interface WireLogger {
  warn(fields: Readonly<Record<string, unknown>>, message: string): void;
  error(fields: Readonly<Record<string, unknown>>, message: string): void;
}

/**
 * The server's capabilities, for the wire's one tenant (SEAM.md). The wire never touches the
 * store: it translates Cursor messages into JSON-contract requests and run events back.
 */
export interface WirePorts {
  /**
   * Validates and prepares one run (`ConversationService.prepareRun`). Throws before anything is
   * stored; thrown errors carry a `code` string (the domain error codes), mapped to Connect codes.
   * `hydrate` is called only when the store does not know the conversation.
   */
  prepareRun(input: {
    body: AgentRunRequestJson;
    hydrate?: () => Promise<HydratedHeadLike>;
    signal?: AbortSignal;
  }): Promise<WirePreparedRun>;
  /** Cancels the conversation's active run; true when one was running. */
  cancel(conversationId: string): boolean;
  /** The stored head (to resume a pending tool round); undefined when the store does not know it. */
  head?(conversationId: string): Promise<ConversationHead | undefined>;
  /** The configured BYOK models; the first is the default. */
  models(): readonly WireModel[];
  /** Key of the conversation-state MAC (at least 32 characters). */
  readonly checkpointSecret: string;
  readonly logger: WireLogger;
}
