import type { FakeReply } from "@cursor/fake-provider";

// The shapes of a generated agent session. Every run event carries the exact gateway
// `POST /v1/runs` body (docs/http-contract.md) and the scripted fake-provider replies its model calls
// consume, in order; a harness enqueues `replies`, posts `body` and expects `expectedEnd`.

export type SessionMode = "agent" | "ask" | "plan" | "debug";

export interface SessionRule {
  readonly name: string;
  readonly path: string;
  readonly content: string;
}

export interface SessionRequestContext {
  readonly rules: readonly SessionRule[];
  readonly skills: readonly {
    readonly name: string;
    readonly path: string;
    readonly description: string;
  }[];
  readonly subagents: readonly { readonly name: string; readonly description: string }[];
  readonly env: {
    readonly os: string;
    readonly shell: string;
    readonly workspacePaths: readonly string[];
    readonly timeZone: string;
  };
  readonly git: readonly {
    readonly path: string;
    readonly branch: string;
    readonly status: string;
  }[];
  readonly mcp: {
    readonly servers: readonly {
      readonly name: string;
      readonly instructions: string;
      readonly tools: readonly {
        readonly name: string;
        readonly description: string;
        readonly inputSchema: Readonly<Record<string, unknown>>;
      }[];
    }[];
  };
}

export type SessionSelectedContext =
  | { readonly kind: "file"; readonly path: string; readonly content: string }
  | {
      readonly kind: "code";
      readonly path: string;
      readonly startLine: number;
      readonly endLine: number;
      readonly content: string;
    }
  | { readonly kind: "terminal"; readonly title: string; readonly content: string }
  | { readonly kind: "text"; readonly content: string };

export interface SessionFileReference {
  readonly path: string;
  readonly totalLines: number;
  readonly focused?: boolean;
  readonly cursorLine?: number;
}

export interface SessionUserMessage {
  readonly id: string;
  readonly text: string;
  readonly selectedContext?: readonly SessionSelectedContext[];
  readonly openFiles?: readonly SessionFileReference[];
  readonly recentFiles?: readonly SessionFileReference[];
  readonly images?: readonly { readonly mimeType: string; readonly data: string }[];
}

export interface SessionToolResult {
  readonly callId: string;
  readonly output: string;
  readonly isError?: boolean;
}

export interface SessionBackgroundCompletion {
  readonly taskId: string;
  readonly kind: "shell" | "subagent";
  readonly status: "success" | "error" | "aborted";
  readonly title: string;
  readonly detail?: string;
  readonly toolCallId?: string;
}

export type SessionAction =
  | { readonly type: "user-message"; readonly message: SessionUserMessage }
  | { readonly type: "tool-results"; readonly results: readonly SessionToolResult[] }
  | {
      readonly type: "inject-context";
      readonly injectionId: string;
      readonly expectedRunId?: string;
      readonly text: string;
    }
  | {
      readonly type: "background-completion";
      readonly completions: readonly SessionBackgroundCompletion[];
    }
  | { readonly type: "summarize" };

/** A gateway `POST /v1/runs` body. */
export interface RunRequestBody {
  readonly conversationId: string;
  readonly runId: string;
  readonly mode: SessionMode;
  readonly model?: string;
  readonly timestamp: string;
  readonly action: SessionAction;
  readonly requestContext?: SessionRequestContext;
}

interface RunEventBase {
  /** Position in the session. */
  readonly index: number;
  readonly body: RunRequestBody;
  /** What the model answers to each provider call of this request, in order ([] for none). */
  readonly replies: readonly FakeReply[];
  /** How the gateway run ends (`run.ended.reason`). */
  readonly expectedEnd: "completed" | "awaiting-tools";
}

export type SessionEvent =
  | (RunEventBase & {
      readonly type: "user-turn";
      /** 0-based user turn number. */
      readonly turn: number;
      /** Name of the request-context variant sent (`base`, `extra-rule`, `other-branch`). */
      readonly contextVariant: string;
      /** The context differs from the one sent with the previous user turn. */
      readonly contextChanged: boolean;
      /** The context returns to a variant sent before the previous one (A → B → A). */
      readonly contextReverted: boolean;
      readonly modeSwitched: boolean;
      /** First user turn after a compaction (the context may be re-projected). */
      readonly afterCompaction: boolean;
    })
  | (RunEventBase & {
      readonly type: "tool-results";
      readonly turn: number;
      readonly round: number;
    })
  | (RunEventBase & { readonly type: "background-completion"; readonly duplicate: boolean })
  | (RunEventBase & { readonly type: "inject-context" })
  | (RunEventBase & { readonly type: "summarize" })
  | (RunEventBase & {
      readonly type: "retry";
      /** `index` of the event whose body is sent again, byte for byte. */
      readonly retryOf: number;
    })
  /** Restart the gateway process here (same data folder); the next request must continue the prefix. */
  | { readonly type: "restart"; readonly index: number };

export type SessionEventType = SessionEvent["type"];

export interface AgentSessionStats {
  readonly userTurns: number;
  readonly runRequests: number;
  readonly providerCalls: number;
  readonly toolRounds: number;
  readonly toolCalls: number;
  readonly contextChanges: number;
  readonly contextReverts: number;
  readonly modeSwitches: number;
  readonly backgroundCompletions: number;
  readonly duplicateDeliveries: number;
  readonly injections: number;
  readonly retries: number;
  readonly restarts: number;
  readonly compactions: number;
  /** Characters of tool output over the session. */
  readonly toolOutputChars: number;
}

export interface AgentSession {
  readonly seed: number;
  readonly conversationId: string;
  readonly events: readonly SessionEvent[];
  readonly stats: AgentSessionStats;
}
