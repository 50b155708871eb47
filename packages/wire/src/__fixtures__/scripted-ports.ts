import type { ConversationHead } from "@cursor/projection";
import type {
  AgentRunRequestJson,
  HydratedHeadLike,
  WireLogger,
  WirePorts,
  WirePreparedRun,
  WireRunEvent,
  WireRunOutcome,
} from "../ports.js";
import { testModels, testSecret } from "./wire-models.js";

/** A domain error of the kind the server's service throws (SEAM.md): a stable `code`. */
export class FakeDomainError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * What one `prepareRun` does. No run logic: the events are the test's, as the conversation
 * service would emit them (`run.started` and `run.ended` are added around them).
 */
export interface ScriptedRun {
  /** Thrown by `prepareRun` (a refused request). */
  readonly refuse?: Error;
  /** The events between `run.started` and `run.ended`; a function gets the request body. */
  readonly events?:
    readonly WireRunEvent[] | ((body: AgentRunRequestJson) => readonly WireRunEvent[]);
  /** Waits for it before the run ends; aborting the run's signal ends it `cancelled`. */
  readonly hold?: Promise<void>;
  /** Events after `hold` settled (unless the run was cancelled meanwhile). */
  readonly after?: readonly WireRunEvent[];
  readonly end?: WireRunOutcome;
}

export interface LoggedLine {
  readonly level: "warn" | "error";
  readonly fields: Readonly<Record<string, unknown>>;
  readonly message: string;
}

/**
 * `WirePorts` whose runs play scripted events: protocol tests check what the wire makes of
 * the events and what it asks of the ports, without any second implementation of the run path
 * (the server's end-to-end tests run the real one). An unscripted run answers "ok".
 */
export class ScriptedPorts {
  /** Every body `prepareRun` was given, in order. */
  readonly bodies: AgentRunRequestJson[] = [];
  /** What `hydrate` gave, each time the wire offered one. */
  readonly hydrated: HydratedHeadLike[] = [];
  readonly cancelled: string[] = [];
  readonly logs: LoggedLine[] = [];
  /** What `ports.head` answers (the "stored" heads). */
  readonly heads = new Map<string, ConversationHead>();
  /** Open runs by conversation. */
  readonly active = new Map<string, AbortController>();
  readonly #script: ScriptedRun[] = [];

  readonly logger: WireLogger = {
    warn: (fields, message) => this.logs.push({ level: "warn", fields, message }),
    error: (fields, message) => this.logs.push({ level: "error", fields, message }),
  };

  script(...runs: ScriptedRun[]): void {
    this.#script.push(...runs);
  }

  ports(overrides: Partial<WirePorts> = {}): WirePorts {
    return {
      prepareRun: (input) => this.#prepareRun(input),
      cancel: (conversationId) => {
        this.cancelled.push(conversationId);
        const active = this.active.get(conversationId);
        if (active === undefined || active.signal.aborted) return false;
        active.abort(new Error("cancelled"));
        return true;
      },
      head: (conversationId) => Promise.resolve(this.heads.get(conversationId)),
      models: () => testModels,
      checkpointSecret: testSecret,
      logger: this.logger,
      ...overrides,
    };
  }

  async #prepareRun({
    body,
    hydrate,
    signal,
  }: {
    body: AgentRunRequestJson;
    hydrate?: () => Promise<HydratedHeadLike>;
    signal?: AbortSignal;
  }): Promise<WirePreparedRun> {
    this.bodies.push(body);
    const run = this.#script.shift() ?? {
      events: [{ type: "text.delta", text: "ok" } satisfies WireRunEvent],
    };
    if (run.refuse !== undefined) throw run.refuse;
    // The service calls `hydrate` only for a conversation it does not store.
    if (hydrate !== undefined && !this.heads.has(body.conversationId)) {
      this.hydrated.push(await hydrate());
    }
    const controller = new AbortController();
    signal?.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
    if (signal?.aborted) controller.abort(signal.reason);
    this.active.set(body.conversationId, controller);
    return {
      execute: async (sink) => {
        try {
          sink.event({
            type: "run.started",
            conversationId: body.conversationId,
            runId: body.runId,
            epoch: 0,
          });
          const events = typeof run.events === "function" ? run.events(body) : (run.events ?? []);
          for (const event of events) sink.event(event);
          let outcome: WireRunOutcome = run.end ?? { reason: "completed" };
          if (run.hold !== undefined) {
            const cancelled = await new Promise<boolean>((resolve) => {
              if (controller.signal.aborted) return resolve(true);
              controller.signal.addEventListener("abort", () => resolve(true), { once: true });
              void run.hold!.then(() => resolve(false));
            });
            if (cancelled) outcome = { reason: "cancelled" };
            else for (const event of run.after ?? []) sink.event(event);
          }
          sink.event({ type: "run.ended", ...outcome });
          return outcome;
        } finally {
          this.active.delete(body.conversationId);
        }
      },
    };
  }
}

/** A `head` event of `head` (its open round as the pending calls). */
export function headEvent(head: ConversationHead, final = false): WireRunEvent {
  return { type: "head", head, pendingToolCalls: head.history.pendingToolCalls(), final };
}

/** A `usage` event: `input` tokens of which `cached` were read and `written` written. */
export function usageEvent({
  input,
  cached = 0,
  written = 0,
  output,
}: {
  input: number;
  cached?: number;
  written?: number;
  output: number;
}): WireRunEvent {
  return {
    type: "usage",
    usage: {
      inputTokens: input,
      cachedInputTokens: cached,
      cacheWriteTokens: written,
      outputTokens: output,
    },
  };
}
