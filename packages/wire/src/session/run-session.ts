import { toBinary } from "@bufbuild/protobuf";
import { ConnectError } from "../connect/connect-error.js";
import { encodeEndStream } from "../connect/end-stream.js";
import { encodeEnvelope } from "../connect/envelope.js";
import type {
  AgentClientMessage,
  AgentRunRequest,
  AgentServerMessage,
} from "../gen/agent_v1_pb.js";
import { AgentServerMessageSchema } from "../gen/agent_v1_pb.js";
import type { WireLogger } from "../ports.js";
import type { ToolBridge } from "../turn/tool-bridge.js";
import { unavailableToolBridge } from "../turn/tool-bridge.js";
import { interactionUpdates } from "../updates/interaction-updates.js";
import { AppendSequencer } from "./append-sequencer.js";
import { KvChannel } from "./kv-channel.js";
import type { TimerHandle, WireTimers } from "./wire-timers.js";

/** Timings and bounds of run streams (facts §1.4, §1.6, §1.7, §3.9). */
export interface SessionLimits {
  /** A heartbeat goes out when nothing else was sent for this long. */
  readonly heartbeatMs: number;
  /** A run with no RunSSE subscriber for this long is cancelled (the client is gone). */
  readonly orphanTimeoutMs: number;
  /** How long an ended stream stays available for a reconnecting RunSSE. */
  readonly retentionMs: number;
  /** How long a request id waits for its run_request (append 0). */
  readonly firstAppendTimeoutMs: number;
  /** Bytes of frames kept for replay; a longer stream cannot be replayed to a reconnect. */
  readonly maxBacklogBytes: number;
  readonly appendWindow: number;
  readonly gapTimeoutMs: number;
  readonly kvTimeoutMs: number;
}

export const defaultSessionLimits: SessionLimits = Object.freeze({
  heartbeatMs: 5_000,
  orphanTimeoutMs: 30_000,
  retentionMs: 30_000,
  firstAppendTimeoutMs: 30_000,
  maxBacklogBytes: 64 * 1024 * 1024,
  appendWindow: 256,
  gapTimeoutMs: 30_000,
  kvTimeoutMs: 10_000,
});

/** Where a RunSSE response's bytes go. */
export interface StreamSubscriber {
  write(chunk: Uint8Array): void;
  end(): void;
}

const heartbeatFrame = encodeEnvelope({
  payload: toBinary(AgentServerMessageSchema, interactionUpdates.heartbeat()),
});

/**
 * One request id: the RunSSE downlink (with its backlog for reconnects) and the BidiAppend
 * uplink (ordered by seqno), alive from the first RunSSE or append until its run ended and the
 * retention passed. Its `signal` aborts when the client cancels, is gone, or the gateway stops.
 */
export class RunSession {
  readonly requestId: string;
  readonly kv: KvChannel;
  readonly #timers: WireTimers;
  readonly #limits: SessionLimits;
  readonly #logger: WireLogger;
  /** A decodable append, or the error of one whose payload was not (it still takes its seqno). */
  readonly #sequencer: AppendSequencer<AgentClientMessage | ConnectError>;
  readonly #abort = new AbortController();
  readonly #onRunRequest: (session: RunSession, runRequest: AgentRunRequest) => void;
  readonly #onEnded: (session: RunSession) => void;
  readonly #onExpired: (session: RunSession) => void;
  readonly #subscribers = new Set<StreamSubscriber>();
  readonly #backlog: Uint8Array[] = [];
  #backlogBytes = 0;
  #backlogComplete = true;
  #started = false;
  #ended = false;
  #lastWriteAt: number;
  #heartbeatTimer: TimerHandle | undefined;
  #orphanTimer: TimerHandle | undefined;
  #firstAppendTimer: TimerHandle | undefined;
  #retentionTimer: TimerHandle | undefined;
  #bridge: ToolBridge | undefined;
  #resolveDone!: () => void;
  /** Resolves once the stream ended (its end-stream frame is written). */
  readonly done: Promise<void>;
  conversationId: string | undefined;

  constructor({
    requestId,
    timers,
    limits,
    logger,
    onRunRequest,
    onEnded,
    onExpired,
  }: {
    requestId: string;
    timers: WireTimers;
    limits: SessionLimits;
    logger: WireLogger;
    onRunRequest: (session: RunSession, runRequest: AgentRunRequest) => void;
    onEnded: (session: RunSession) => void;
    onExpired: (session: RunSession) => void;
  }) {
    this.requestId = requestId;
    this.#timers = timers;
    this.#limits = limits;
    this.#logger = logger;
    this.#onRunRequest = onRunRequest;
    this.#onEnded = onEnded;
    this.#onExpired = onExpired;
    this.#lastWriteAt = timers.now();
    this.done = new Promise((resolve) => (this.#resolveDone = resolve));
    this.kv = new KvChannel({
      send: (message) => this.send(message),
      timers,
      timeoutMs: limits.kvTimeoutMs,
    });
    this.#sequencer = new AppendSequencer({
      timers,
      window: limits.appendWindow,
      gapTimeoutMs: limits.gapTimeoutMs,
      deliver: (message, seqno) => this.#deliver(message, seqno),
      startsSequence: (message) =>
        !ConnectError.isInstance(message) && message.message.case === "runRequest",
      onGapTimeout: (missing) =>
        this.end(
          new ConnectError({
            code: "failed_precondition",
            message: `append ${missing} of request ${requestId} never arrived`,
          }),
        ),
    });
    this.#firstAppendTimer = timers.setTimeout(() => {
      this.#firstAppendTimer = undefined;
      if (this.#started) return;
      this.end(
        new ConnectError({
          code: "not_found",
          message: `no run_request arrived for request ${requestId} within ${limits.firstAppendTimeoutMs} ms`,
        }),
      );
    }, limits.firstAppendTimeoutMs);
    this.#armOrphanTimer();
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get ended(): boolean {
    return this.#ended;
  }

  get subscriberCount(): number {
    return this.#subscribers.size;
  }

  /**
   * Attaches a RunSSE response: it first gets every frame sent so far (a reconnect replays the
   * whole stream, facts §1.7), then the live ones. Returns the detach function.
   */
  subscribe(subscriber: StreamSubscriber): () => void {
    if (!this.#backlogComplete) {
      subscriber.write(
        encodeEndStream(
          new ConnectError({
            code: "resource_exhausted",
            message: `request ${this.requestId} sent more than ${this.#limits.maxBacklogBytes} bytes; it cannot be replayed`,
          }),
        ),
      );
      subscriber.end();
      return () => undefined;
    }
    for (const frame of this.#backlog) subscriber.write(frame);
    if (this.#ended) {
      subscriber.end();
      return () => undefined;
    }
    this.#subscribers.add(subscriber);
    this.#clearOrphanTimer();
    this.#armHeartbeat();
    return () => {
      if (!this.#subscribers.delete(subscriber)) return;
      if (this.#subscribers.size === 0 && !this.#ended) {
        this.#clearHeartbeat();
        this.#armOrphanTimer();
      }
    };
  }

  /** Checks an append's seqno before its body is used (a seqno far past the window is refused). */
  checkSeqno(seqno: bigint): void {
    this.#sequencer.check(seqno);
  }

  /** One BidiAppend: settles once it was delivered in order (or dropped as a duplicate). */
  append({
    seqno,
    message,
    bytes,
  }: {
    seqno: bigint;
    /** An undecodable payload is passed as its error: in order, it fails the run. */
    message: AgentClientMessage | ConnectError;
    bytes: number;
  }): Promise<void> {
    if (this.#ended) return Promise.reject(this.#finishedError());
    return this.#sequencer.submit({ seqno, message, bytes });
  }

  /** Sends one message on the downlink (kept for replay). */
  send(message: AgentServerMessage): void {
    if (this.#ended) return;
    this.#write(encodeEnvelope({ payload: toBinary(AgentServerMessageSchema, message) }), true);
  }

  /** The turn's tool bridge gets the exec and interaction results from now on. */
  attachToolBridge(bridge: ToolBridge): void {
    this.#bridge = bridge;
  }

  /** Cancels the run (the client's cancel, the client gone, a newer run, a shutdown). */
  cancel(reason: string): void {
    if (!this.#abort.signal.aborted) this.#abort.abort(new Error(reason));
    if (!this.#started) this.end(new ConnectError({ code: "canceled", message: reason }));
  }

  /** Writes the end-stream frame (`{}` or the error), ends every subscriber, starts retention. */
  end(error?: ConnectError): void {
    if (this.#ended) return;
    this.#write(encodeEndStream(error), true);
    this.#ended = true;
    for (const subscriber of this.#subscribers) subscriber.end();
    this.#subscribers.clear();
    this.#clearHeartbeat();
    this.#clearOrphanTimer();
    if (this.#firstAppendTimer !== undefined) this.#timers.clearTimeout(this.#firstAppendTimer);
    this.#firstAppendTimer = undefined;
    const finished = error?.code === "not_found" && !this.#started ? error : this.#finishedError();
    this.kv.close(finished);
    this.#sequencer.close(finished);
    if (!this.#abort.signal.aborted) this.#abort.abort(new Error("the stream ended"));
    this.#retentionTimer = this.#timers.setTimeout(() => {
      this.#retentionTimer = undefined;
      this.#onExpired(this);
    }, this.#limits.retentionMs);
    this.#resolveDone();
    this.#onEnded(this);
  }

  /** Drops the retained stream now (gateway shutdown). */
  dispose(): void {
    if (this.#retentionTimer !== undefined) this.#timers.clearTimeout(this.#retentionTimer);
    this.#retentionTimer = undefined;
  }

  #finishedError(): ConnectError {
    return new ConnectError({
      code: "failed_precondition",
      message: `request ${this.requestId} has finished`,
    });
  }

  #deliver(message: AgentClientMessage | ConnectError, seqno: number): void {
    if (ConnectError.isInstance(message)) {
      // The run cannot go on past a message it could not read: end it with the reason.
      this.end(message);
      throw message;
    }
    const content = message.message;
    // Heartbeats and warm-ups carry nothing to act on, so they may come before the run request.
    const harmless = content.case === "clientHeartbeat" || content.case === "prewarmRequest";
    if (!this.#started && content.case !== "runRequest" && !harmless) {
      throw new ConnectError({
        code: "failed_precondition",
        message: `append ${seqno} of request ${this.requestId} must be its run_request, got ${content.case ?? "an unknown message"}`,
      });
    }
    switch (content.case) {
      case "runRequest":
        if (this.#started) {
          throw new ConnectError({
            code: "failed_precondition",
            message: `request ${this.requestId} already has its run_request; append ${seqno} carries another`,
          });
        }
        this.#started = true;
        if (this.#firstAppendTimer !== undefined) this.#timers.clearTimeout(this.#firstAppendTimer);
        this.#firstAppendTimer = undefined;
        this.#onRunRequest(this, content.value);
        return;
      case "kvClientMessage":
        this.kv.deliver(content.value);
        return;
      case "execClientMessage":
        (this.#bridge ?? unavailableToolBridge(this.#bridgeStub())).deliver({
          case: "exec",
          value: content.value,
        });
        return;
      case "execClientControlMessage":
        (this.#bridge ?? unavailableToolBridge(this.#bridgeStub())).deliver({
          case: "execControl",
          value: content.value,
        });
        return;
      case "interactionResponse":
        (this.#bridge ?? unavailableToolBridge(this.#bridgeStub())).deliver({
          case: "interactionResponse",
          value: content.value,
        });
        return;
      case "conversationAction": {
        const action = content.value.action;
        if (action.case === "cancelAction") {
          const reason = action.value.reason.trim();
          this.cancel(`cancelled by the client${reason === "" ? "" : `: ${reason}`}`);
          return;
        }
        throw new ConnectError({
          code: "unimplemented",
          message: `${action.case ?? "an unknown action"} during a run is not supported; only cancel_action is (send other actions as a new run)`,
        });
      }
      case "clientHeartbeat":
      case "prewarmRequest":
        return;
      case undefined:
        // A message kind of a newer client: acknowledged and skipped.
        this.#logger.warn(
          { requestId: this.requestId, seqno, fields: message.$unknown?.map((f) => f.no) ?? [] },
          "skipped a client message of an unknown kind",
        );
        return;
      default: {
        const exhaustive: never = content;
        throw new Error(`unknown client message ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  #bridgeStub() {
    return {
      conversationId: this.conversationId ?? "",
      runId: "",
      send: () => undefined,
      signal: this.signal,
      nextExecId: () => 0,
      lastExecId: () => 0,
      settled: () => undefined,
      todos: { get: () => [], set: () => undefined },
      mcpTools: new Map(),
    };
  }

  #write(frame: Uint8Array, keep: boolean): void {
    if (keep && this.#backlogComplete) {
      if (this.#backlogBytes + frame.length > this.#limits.maxBacklogBytes) {
        this.#backlogComplete = false;
        this.#backlog.length = 0;
        this.#backlogBytes = 0;
      } else {
        this.#backlog.push(frame);
        this.#backlogBytes += frame.length;
      }
    }
    this.#lastWriteAt = this.#timers.now();
    for (const subscriber of this.#subscribers) subscriber.write(frame);
  }

  #armHeartbeat(): void {
    if (this.#heartbeatTimer !== undefined || this.#ended) return;
    const due = this.#lastWriteAt + this.#limits.heartbeatMs - this.#timers.now();
    this.#heartbeatTimer = this.#timers.setTimeout(
      () => {
        this.#heartbeatTimer = undefined;
        if (this.#ended || this.#subscribers.size === 0) return;
        if (this.#timers.now() - this.#lastWriteAt >= this.#limits.heartbeatMs) {
          // Heartbeats are not kept: a reconnect replays the run, not the silences in it.
          this.#write(heartbeatFrame, false);
        }
        this.#armHeartbeat();
      },
      Math.max(0, due),
    );
  }

  #clearHeartbeat(): void {
    if (this.#heartbeatTimer !== undefined) this.#timers.clearTimeout(this.#heartbeatTimer);
    this.#heartbeatTimer = undefined;
  }

  #armOrphanTimer(): void {
    if (this.#orphanTimer !== undefined || this.#ended) return;
    this.#orphanTimer = this.#timers.setTimeout(() => {
      this.#orphanTimer = undefined;
      if (this.#subscribers.size > 0 || this.#ended) return;
      this.cancel(`the client is gone (no RunSSE stream for ${this.#limits.orphanTimeoutMs} ms)`);
    }, this.#limits.orphanTimeoutMs);
  }

  #clearOrphanTimer(): void {
    if (this.#orphanTimer !== undefined) this.#timers.clearTimeout(this.#orphanTimer);
    this.#orphanTimer = undefined;
  }
}
