import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { ConnectError } from "./connect/connect-error.js";
import type { UnaryReply } from "./connect/end-stream.js";
import { encodeEndStream, unaryErrorReply, unaryProtoReply } from "./connect/end-stream.js";
import type { RequestHeaders } from "./connect/request-body.js";
import { singleMessageBytes, unaryMessageBytes } from "./connect/request-body.js";
import type { AgentClientMessage } from "./gen/agent_v1_pb.js";
import { AgentClientMessageSchema } from "./gen/agent_v1_pb.js";
import {
  BidiAppendRequestSchema,
  BidiAppendResponseSchema,
  BidiRequestIdSchema,
} from "./gen/aiserver_v1_pb.js";
import { decodeHex } from "./hex.js";
import { availableModelsReply, usableModelsReply } from "./models/model-lists.js";
import type { WirePorts } from "./ports.js";
import type { ClientBlobLedger } from "./session/client-blob-ledger.js";
import { MemoryClientBlobLedger } from "./session/client-blob-ledger.js";
import type { SessionLimits } from "./session/run-session.js";
import { RunSession, defaultSessionLimits } from "./session/run-session.js";
import type { WireTimers } from "./session/wire-timers.js";
import { systemTimers } from "./session/wire-timers.js";
import { TurnRecordPacks } from "./state/turn-record-packs.js";
import { UiTurnMemory } from "./state/ui-turn-memory.js";
import { cancelledError } from "./turn/map-errors.js";
import { defaultMaxToolRounds, runCursorTurn } from "./turn/run-cursor-turn.js";
import type { CursorTurnDeps } from "./turn/turn-context.js";
import type { ToolBridgeFactory } from "./turn/tool-bridge.js";
import { unavailableToolBridge } from "./turn/tool-bridge.js";

/** Where a RunSSE answer goes: any HTTP/1.1 or HTTP/2 response. */
export interface RunSseResponse {
  /** Status line and headers, once, before the first `write`. */
  start(status: number, headers: Readonly<Record<string, string>>): void;
  write(chunk: Uint8Array): void;
  end(): void;
}

/** A request as any Node HTTP server gives it: lower-case headers and the whole body. */
export interface WireRequest {
  readonly headers: RequestHeaders;
  readonly body: Uint8Array;
}

export interface CursorWireOptions {
  readonly ports: WirePorts;
  /** What the IDE already holds, per conversation (default: process memory). */
  readonly blobLedger?: ClientBlobLedger;
  /** Runs tool rounds in the IDE (default: every call answers "not available yet"). */
  readonly toolBridge?: ToolBridgeFactory;
  readonly timers?: WireTimers;
  readonly limits?: Partial<SessionLimits>;
  /** Tool rounds per Cursor turn before it hands back to the user. */
  readonly maxToolRounds?: number;
  /** How long a new run of a conversation waits for the run it replaces to end. */
  readonly takeoverTimeoutMs?: number;
  /** Request ids remembered after their retention ended, so a late append is refused. */
  readonly maxFinishedRequestIds?: number;
}

/** The Cursor IDE's agent protocol, ready to mount on an HTTP server (see `wireRoutes`). */
export interface CursorWire {
  /** `POST /agent.v1.AgentService/RunSSE`: streams the run; resolves when the response ended. */
  runSse(input: WireRequest & { response: RunSseResponse; signal?: AbortSignal }): Promise<void>;
  /** `POST /aiserver.v1.BidiService/BidiAppend`: resolves once the append was delivered. */
  bidiAppend(input: WireRequest): Promise<UnaryReply>;
  /** `POST /aiserver.v1.AiService/AvailableModels`. */
  availableModels(input: WireRequest): UnaryReply;
  /** `POST …/GetUsableModels` (both services). */
  getUsableModels(input: WireRequest): UnaryReply;
  /** Open request ids (running or retained). */
  readonly sessionCount: number;
  /** Cancels every run and waits until each stream ended. */
  close(): Promise<void>;
}

const runSseHeaders = Object.freeze({
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  "connect-protocol-version": "1",
});

/**
 * Creates the wire: RunSSE / BidiAppend sessions per request id, the model lists, and the turn
 * driver that runs each Cursor turn through `ports.prepareRun`. Holds no store; everything it
 * keeps is per stream or a cache.
 */
export function createCursorWire(options: CursorWireOptions): CursorWire {
  const { ports } = options;
  const timers = options.timers ?? systemTimers;
  const limits: SessionLimits = { ...defaultSessionLimits, ...options.limits };
  const takeoverTimeoutMs = options.takeoverTimeoutMs ?? 10_000;
  const maxFinished = options.maxFinishedRequestIds ?? 10_000;
  const sessions = new Map<string, RunSession>();
  const finished = new Set<string>();
  const claims = new Map<string, RunSession>();
  let closing = false;
  const deps: CursorTurnDeps = {
    ports,
    ledger: options.blobLedger ?? new MemoryClientBlobLedger(),
    records: new TurnRecordPacks(),
    uiTurns: new UiTurnMemory(),
    timers,
    toolBridge: options.toolBridge ?? unavailableToolBridge,
    maxToolRounds: options.maxToolRounds ?? defaultMaxToolRounds,
  };

  const waitFor = (promise: Promise<void>, ms: number) =>
    new Promise<void>((resolve) => {
      const timer = timers.setTimeout(resolve, ms);
      void promise.then(() => {
        timers.clearTimeout(timer);
        resolve();
      });
    });

  async function claimConversation(session: RunSession, conversationId: string): Promise<void> {
    session.conversationId = conversationId;
    const other = claims.get(conversationId);
    claims.set(conversationId, session);
    if (other !== undefined && other !== session && !other.ended) {
      // A new run of the conversation replaces the one still streaming (facts §1.7).
      other.cancel("a newer run of this conversation started");
      ports.cancel(conversationId);
      await waitFor(other.done, takeoverTimeoutMs);
    }
  }

  function startTurn(
    session: RunSession,
    runRequest: Parameters<typeof runCursorTurn>[0]["runRequest"],
  ) {
    void runCursorTurn({
      runRequest,
      deps,
      stream: {
        requestId: session.requestId,
        kv: session.kv,
        signal: session.signal,
        send: (message) => session.send(message),
        claimConversation: (conversationId) => claimConversation(session, conversationId),
        attachToolBridge: (bridge) => session.attachToolBridge(bridge),
      },
    }).then(
      (error) => {
        if (error !== undefined && session.signal.aborted && error.code !== "canceled") {
          const reason: unknown = session.signal.reason;
          session.end(cancelledError(reason instanceof Error ? reason.message : "cancelled"));
        } else session.end(error);
      },
      (error: unknown) => {
        ports.logger.error(
          {
            requestId: session.requestId,
            err: error instanceof Error ? error.message : String(error),
          },
          "the Cursor turn failed unexpectedly",
        );
        session.end(
          new ConnectError({
            code: "internal",
            message: "the turn failed unexpectedly",
            detail: {
              kind: "internal",
              title: "Internal error",
              detail: "The gateway failed while running this turn.",
              retryable: true,
            },
          }),
        );
      },
    );
  }

  function sessionFor(requestId: string): RunSession {
    if (finished.has(requestId)) {
      throw new ConnectError({
        code: "failed_precondition",
        message: `request ${requestId} has finished`,
      });
    }
    let session = sessions.get(requestId);
    if (session === undefined) {
      if (closing) {
        throw new ConnectError({ code: "unavailable", message: "the gateway is shutting down" });
      }
      session = new RunSession({
        requestId,
        timers,
        limits,
        logger: ports.logger,
        onRunRequest: startTurn,
        onEnded: (ended) => {
          const conversationId = ended.conversationId;
          if (conversationId !== undefined && claims.get(conversationId) === ended) {
            claims.delete(conversationId);
          }
        },
        onExpired: (expired) => {
          sessions.delete(expired.requestId);
          finished.add(expired.requestId);
          for (const oldest of finished) {
            if (finished.size <= maxFinished) break;
            finished.delete(oldest);
          }
        },
      });
      sessions.set(requestId, session);
    }
    return session;
  }

  async function runSse({
    headers,
    body,
    response,
    signal,
  }: WireRequest & { response: RunSseResponse; signal?: AbortSignal }): Promise<void> {
    response.start(200, runSseHeaders);
    let requestId: string;
    let session: RunSession;
    try {
      const id = fromBinary(BidiRequestIdSchema, singleMessageBytes({ body, headers }));
      requestId = id.requestId;
      if (requestId === "") {
        throw new ConnectError({
          code: "invalid_argument",
          message: "RunSSE needs a request id (BidiRequestId.request_id)",
        });
      }
      session = sessionFor(requestId);
    } catch (error) {
      response.write(encodeEndStream(asConnectError(error, "the RunSSE body")));
      response.end();
      return;
    }
    await new Promise<void>((resolve) => {
      let detach: () => void = () => undefined;
      const onAbort = () => {
        detach();
        resolve();
      };
      detach = session.subscribe({
        write: (chunk) => response.write(chunk),
        end: () => {
          signal?.removeEventListener("abort", onAbort);
          response.end();
          resolve();
        },
      });
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  async function bidiAppend({ headers, body }: WireRequest): Promise<UnaryReply> {
    try {
      const append = decode(
        BidiAppendRequestSchema,
        unaryMessageBytes({ body, headers }),
        "BidiAppendRequest",
      );
      const requestId = append.requestId?.requestId ?? "";
      if (requestId === "") {
        throw new ConnectError({
          code: "invalid_argument",
          message: "BidiAppendRequest.request_id is required",
        });
      }
      if (append.data !== "" && append.dataBinary.length > 0) {
        throw new ConnectError({
          code: "invalid_argument",
          message: "BidiAppendRequest has both data and data_binary",
        });
      }
      const session = sessionFor(requestId);
      session.checkSeqno(append.appendSeqno);
      // A payload that does not decode still takes its seqno, so the run ends with its error
      // instead of waiting for a gap that never fills.
      let message: AgentClientMessage | ConnectError;
      let bytes = append.dataBinary.length;
      try {
        const payload =
          append.dataBinary.length > 0
            ? append.dataBinary
            : decodeHex(append.data, "BidiAppendRequest.data");
        bytes = payload.length;
        message = decode(
          AgentClientMessageSchema,
          payload,
          `append ${append.appendSeqno}'s AgentClientMessage`,
        );
      } catch (error) {
        message = asConnectError(error, "the append's data");
      }
      await session.append({ seqno: append.appendSeqno, message, bytes });
      return unaryProtoReply(
        toBinary(BidiAppendResponseSchema, create(BidiAppendResponseSchema, {})),
      );
    } catch (error) {
      return unaryErrorReply(asConnectError(error, "the BidiAppend body"));
    }
  }

  function availableModels(): UnaryReply {
    return unaryProtoReply(availableModelsReply(ports.models()));
  }

  function getUsableModels(): UnaryReply {
    return unaryProtoReply(usableModelsReply(ports.models()));
  }

  async function close(): Promise<void> {
    closing = true;
    const open = [...sessions.values()];
    for (const session of open) session.cancel("the gateway is shutting down");
    await Promise.all(open.map((session) => waitFor(session.done, takeoverTimeoutMs)));
    for (const session of open) session.dispose();
    sessions.clear();
  }

  return {
    runSse,
    bidiAppend,
    availableModels,
    getUsableModels,
    close,
    get sessionCount() {
      return sessions.size;
    },
  };
}

function decode<T extends Parameters<typeof fromBinary>[0]>(
  schema: T,
  bytes: Uint8Array,
  what: string,
): ReturnType<typeof fromBinary<T>> {
  try {
    return fromBinary(schema, bytes);
  } catch (error) {
    throw new ConnectError({
      code: "invalid_argument",
      message: `${what} could not be decoded: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
}

function asConnectError(error: unknown, what: string): ConnectError {
  if (ConnectError.isInstance(error)) return error;
  return new ConnectError({
    code: "invalid_argument",
    message: `${what} could not be decoded: ${error instanceof Error ? error.message : String(error)}`,
    cause: error,
  });
}
