import { randomUUID } from "node:crypto";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { EnvelopeDecoder, encodeEnvelope, envelopeFlags } from "../connect/envelope.js";
import type {
  AgentServerMessage,
  ConversationStateStructure,
  InteractionUpdate,
  TurnEndedUpdate,
} from "../gen/agent_v1_pb.js";
import {
  AgentClientMessageSchema,
  AgentMode,
  AgentRunRequestSchema,
  AgentServerMessageSchema,
  ConversationActionSchema,
  GetBlobResultSchema,
  KvClientMessageSchema,
  KvErrorSchema,
  PreFetchedBlobSchema,
  RequestContextSchema,
  RequestedModelSchema,
  SelectedContextSchema,
  SetBlobResultSchema,
  UserMessageActionSchema,
  UserMessageSchema,
} from "../gen/agent_v1_pb.js";
import type { ErrorDetails } from "../gen/aiserver_v1_pb.js";
import {
  BidiAppendRequestSchema,
  BidiRequestIdSchema,
  ErrorDetailsSchema,
} from "../gen/aiserver_v1_pb.js";
import { fromHex, toHex } from "../hex.js";
import { wireRoutes } from "../routes.js";
import { MemoryIdeBlobStore } from "./ide-blob-store.js";
import type { FetchLike } from "./in-process-fetch.js";

type ModeName = "agent" | "ask" | "plan" | "debug";
const modes: Readonly<Record<ModeName, AgentMode>> = {
  agent: AgentMode.AGENT,
  ask: AgentMode.ASK,
  plan: AgentMode.PLAN,
  debug: AgentMode.DEBUG,
};

export interface IdeEndStream {
  /** The end-stream error, absent for `{}`. */
  readonly error?: {
    readonly code: string;
    readonly message: string;
    readonly details: readonly ErrorDetails[];
  };
}

/** Everything one turn brought: the messages in order and what they mean. */
export interface IdeTurnResult {
  readonly requestId: string;
  readonly messages: readonly AgentServerMessage[];
  readonly updates: readonly InteractionUpdate[];
  /** Concatenated `text_delta`s (server notices included). */
  readonly text: string;
  readonly thinking: string;
  readonly checkpoints: readonly ConversationStateStructure[];
  readonly turnEnded: TurnEndedUpdate | undefined;
  readonly end: IdeEndStream;
  readonly kv: {
    readonly setBlobIds: readonly string[];
    readonly getBlobIds: readonly string[];
    readonly bytesSet: number;
  };
  /** The order of message kinds, e.g. `checkpoint`, `text_delta`, `turn_ended`, `end`. */
  readonly sequence: readonly string[];
  /** HTTP errors of BidiAppend calls (status and body; status 0: the call itself failed). */
  readonly appendErrors: readonly { readonly status: number; readonly body: string }[];
}

/**
 * What the client may do as messages arrive: cancel the run, drop the stream, or append one more
 * raw `AgentClientMessage` (with the next seqno; a refusal lands in `appendErrors`).
 */
export type IdeReaction = "cancel" | "disconnect" | { readonly append: Uint8Array } | undefined;

export interface IdeTurnInput {
  readonly conversationId: string;
  /** The user's text (a user_message_action); ignored when `action` is given. */
  readonly text?: string;
  readonly messageId?: string;
  readonly mode?: ModeName;
  readonly modelId?: string;
  readonly requestContext?: MessageInitShape<typeof RequestContextSchema>;
  readonly selectedContext?: MessageInitShape<typeof SelectedContextSchema>;
  /** Any conversation action instead of a user message. */
  readonly action?: MessageInitShape<typeof ConversationActionSchema>;
  readonly runId?: string;
  readonly requestId?: string;
  /** The state to echo: the client's latest for the conversation by default, or none. */
  readonly state?: ConversationStateStructure | "none";
  /** Attach the state's blobs as `pre_fetched_blobs` (default: the client's setting). */
  readonly prefetch?: boolean;
  /** Open RunSSE only after the run request was appended (default: RunSSE first). */
  readonly appendFirst?: boolean;
  /** Sees every server message; may cancel the run or drop the stream. */
  readonly onMessage?: (message: AgentServerMessage) => IdeReaction;
}

export interface ScriptedIdeClientOptions {
  /** The global `fetch`, or `createInProcessFetch(wire)`. */
  readonly fetch: FetchLike;
  /** Origin of the gateway, e.g. `http://127.0.0.1:8787`. */
  readonly baseUrl: string;
  /** Sent as `Authorization` on every call, as the IDE sends its Cursor session token. */
  readonly authorization?: string;
  readonly blobStore?: MemoryIdeBlobStore;
  /** Attach referenced blobs as `pre_fetched_blobs` (default true). */
  readonly prefetchBlobs?: boolean;
  /** Answers each `set_blob_args` after this long (a slow acknowledger). */
  readonly acknowledgeDelayMs?: number;
  /** An error message to answer a blob's set with, or undefined to store it. */
  readonly failBlobSet?: (blobId: string) => string | undefined;
  /** Leave `set_blob_args` unanswered (the server's 10 s timeout). */
  readonly ignoreBlobSets?: boolean;
  /** BidiAppend calls in flight at once (default 16), started in seqno order. */
  readonly maxAppendsInFlight?: number;
}

/**
 * A scripted Cursor IDE, written from cursor-wire.md and the facts sheet: it opens RunSSE, sends
 * the run request and every KV answer through BidiAppend (seqno from 0), stores the blobs the
 * server sets, answers its gets, keeps each conversation's latest checkpoint and echoes it (with
 * `pre_fetched_blobs` when asked) on the next turn. No test framework inside.
 */
export class ScriptedIdeClient {
  readonly blobs: MemoryIdeBlobStore;
  readonly #options: ScriptedIdeClientOptions;
  readonly #states = new Map<string, ConversationStateStructure>();

  constructor(options: ScriptedIdeClientOptions) {
    this.#options = options;
    this.blobs = options.blobStore ?? new MemoryIdeBlobStore();
  }

  /** The latest checkpoint the client holds for a conversation. */
  stateOf(conversationId: string): ConversationStateStructure | undefined {
    return this.#states.get(conversationId);
  }

  setState(conversationId: string, state: ConversationStateStructure | undefined): void {
    if (state === undefined) this.#states.delete(conversationId);
    else this.#states.set(conversationId, state);
  }

  #headers(contentType: string): Record<string, string> {
    return {
      "content-type": contentType,
      "connect-protocol-version": "1",
      ...(this.#options.authorization === undefined
        ? {}
        : { authorization: this.#options.authorization }),
    };
  }

  /** One BidiAppend call with a raw AgentClientMessage; returns the HTTP reply. */
  async append({
    requestId,
    seqno,
    message,
  }: {
    requestId: string;
    seqno: number;
    message: Uint8Array;
  }): Promise<{ status: number; body: Uint8Array }> {
    const body = toBinary(
      BidiAppendRequestSchema,
      create(BidiAppendRequestSchema, {
        data: toHex(message),
        requestId: create(BidiRequestIdSchema, { requestId }),
        appendSeqno: BigInt(seqno),
      }),
    );
    return this.post(wireRoutes.bidiAppend, body, "application/proto");
  }

  /** A unary POST to the gateway. */
  async post(path: string, body: Uint8Array, contentType = "application/proto") {
    const response = await this.#options.fetch(`${this.#options.baseUrl}${path}`, {
      method: "POST",
      headers: this.#headers(contentType),
      body,
    });
    return { status: response.status, body: new Uint8Array(await response.arrayBuffer()) };
  }

  #runRequest(input: IdeTurnInput): Uint8Array {
    const state =
      input.state === "none" ? undefined : (input.state ?? this.#states.get(input.conversationId));
    const prefetch = input.prefetch ?? this.#options.prefetchBlobs ?? true;
    const preFetchedBlobs =
      prefetch && state !== undefined
        ? [...state.rootPromptMessagesJson, ...state.turns]
            .map((id) => toHex(id))
            .filter((id, index, all) => all.indexOf(id) === index)
            .flatMap((id) => {
              const value = this.blobs.get(id);
              return value === undefined
                ? []
                : [create(PreFetchedBlobSchema, { id: fromHex(id), value })];
            })
        : [];
    const action =
      input.action ??
      ({
        action: {
          case: "userMessageAction",
          value: create(UserMessageActionSchema, {
            userMessage: create(UserMessageSchema, {
              text: input.text ?? "",
              messageId: input.messageId ?? randomUUID(),
              mode: modes[input.mode ?? "agent"],
              ...(input.selectedContext === undefined
                ? {}
                : { selectedContext: create(SelectedContextSchema, input.selectedContext) }),
            }),
            ...(input.requestContext === undefined
              ? {}
              : { requestContext: create(RequestContextSchema, input.requestContext) }),
          }),
        },
      } satisfies MessageInitShape<typeof ConversationActionSchema>);
    return toBinary(
      AgentClientMessageSchema,
      create(AgentClientMessageSchema, {
        message: {
          case: "runRequest",
          value: create(AgentRunRequestSchema, {
            conversationId: input.conversationId,
            action: create(ConversationActionSchema, action),
            ...(state === undefined ? {} : { conversationState: state }),
            ...(input.modelId === undefined
              ? {}
              : { requestedModel: create(RequestedModelSchema, { modelId: input.modelId }) }),
            preFetchedBlobs,
            ...(input.runId === undefined ? {} : { runId: input.runId }),
          }),
        },
      }),
    );
  }

  /** Runs one turn to its end-stream frame. */
  async runTurn(input: IdeTurnInput): Promise<IdeTurnResult> {
    const requestId = input.requestId ?? randomUUID();
    let seqno = 0;
    const appendErrors: { status: number; body: string }[] = [];
    const pendingAppends: Promise<unknown>[] = [];
    // Like the IDE's HTTP client, a bounded number of appends in flight (a checkpoint of a long
    // conversation the IDE lacks can mean thousands of KV answers), sent in seqno order.
    const slots = new AppendSlots(this.#options.maxAppendsInFlight ?? 16);
    const appendMessage = (message: Uint8Array) => {
      const current = seqno;
      seqno += 1;
      const call = slots
        .run(() => this.append({ requestId, seqno: current, message }))
        .then(
          (reply) => {
            if (reply.status !== 200) {
              appendErrors.push({
                status: reply.status,
                body: new TextDecoder().decode(reply.body),
              });
            }
          },
          (error: unknown) => {
            appendErrors.push({
              status: 0,
              body: error instanceof Error ? error.message : String(error),
            });
          },
        );
      pendingAppends.push(call);
      return call;
    };
    const abort = new AbortController();
    const openStream = () =>
      this.#options.fetch(`${this.#options.baseUrl}${wireRoutes.runSse}`, {
        method: "POST",
        headers: this.#headers("application/connect+proto"),
        body: encodeEnvelope({
          payload: toBinary(BidiRequestIdSchema, create(BidiRequestIdSchema, { requestId })),
        }),
        signal: abort.signal,
      });
    let response: Response;
    if (input.appendFirst === true) {
      await appendMessage(this.#runRequest(input));
      response = await openStream();
    } else {
      // As the IDE does: the RunSSE goes out first, and the run request right after it, without
      // waiting for the stream's answer (a proxy holds the stream until an append names the model).
      const stream = openStream();
      void appendMessage(this.#runRequest(input));
      response = await stream;
    }
    const result = await this.#read({
      response,
      input,
      requestId,
      appendMessage,
      abort,
    });
    await Promise.allSettled(pendingAppends);
    return { ...result, appendErrors };
  }

  async #read({
    response,
    input,
    requestId,
    appendMessage,
    abort,
  }: {
    response: Response;
    input: IdeTurnInput;
    requestId: string;
    appendMessage: (message: Uint8Array) => Promise<void>;
    abort: AbortController;
  }): Promise<Omit<IdeTurnResult, "appendErrors">> {
    const messages: AgentServerMessage[] = [];
    const updates: InteractionUpdate[] = [];
    const checkpoints: ConversationStateStructure[] = [];
    const sequence: string[] = [];
    const setBlobIds: string[] = [];
    const getBlobIds: string[] = [];
    let bytesSet = 0;
    let text = "";
    let thinking = "";
    let turnEnded: TurnEndedUpdate | undefined;
    let end: IdeEndStream | undefined;
    const decoder = new EnvelopeDecoder();
    const reader = response.body!.getReader();
    const kvAnswer = (
      id: number,
      result: MessageInitShape<typeof KvClientMessageSchema>["message"],
    ) =>
      appendMessage(
        toBinary(
          AgentClientMessageSchema,
          create(AgentClientMessageSchema, {
            message: {
              case: "kvClientMessage",
              value: create(KvClientMessageSchema, { id, message: result }),
            },
          }),
        ),
      );
    const handle = (message: AgentServerMessage): IdeReaction => {
      messages.push(message);
      const content = message.message;
      switch (content.case) {
        case "interactionUpdate": {
          updates.push(content.value);
          const update = content.value.message;
          sequence.push(update.case ?? "unknown_update");
          if (update.case === "textDelta") text += update.value.text;
          if (update.case === "thinkingDelta") thinking += update.value.text;
          if (update.case === "turnEnded") turnEnded = update.value;
          break;
        }
        case "conversationCheckpointUpdate":
          sequence.push("checkpoint");
          checkpoints.push(content.value);
          this.#states.set(input.conversationId, content.value);
          break;
        case "kvServerMessage": {
          const kv = content.value;
          if (kv.message.case === "setBlobArgs") {
            sequence.push("set_blob");
            const id = toHex(kv.message.value.blobId);
            const data = kv.message.value.blobData;
            setBlobIds.push(id);
            bytesSet += data.length;
            if (this.#options.ignoreBlobSets === true) break;
            const answer = () => {
              const failure = this.#options.failBlobSet?.(id) ?? this.blobs.set(id, data);
              void kvAnswer(kv.id, {
                case: "setBlobResult",
                value: create(SetBlobResultSchema, {
                  ...(failure === undefined
                    ? {}
                    : { error: create(KvErrorSchema, { message: failure }) }),
                }),
              });
            };
            const delay = this.#options.acknowledgeDelayMs ?? 0;
            if (delay > 0) setTimeout(answer, delay);
            else answer();
          } else if (kv.message.case === "getBlobArgs") {
            sequence.push("get_blob");
            const id = toHex(kv.message.value.blobId);
            getBlobIds.push(id);
            const data = this.blobs.get(id);
            void kvAnswer(kv.id, {
              case: "getBlobResult",
              value: create(GetBlobResultSchema, data === undefined ? {} : { blobData: data }),
            });
          }
          break;
        }
        default:
          sequence.push(content.case ?? "unknown");
      }
      return input.onMessage?.(message);
    };
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        for (const frame of decoder.push(chunk.value)) {
          if ((frame.flags & envelopeFlags.endStream) !== 0) {
            sequence.push("end");
            end = parseEndStream(frame.payload);
            continue;
          }
          const reaction = handle(fromBinary(AgentServerMessageSchema, frame.payload));
          if (reaction === "cancel") {
            void appendMessage(
              toBinary(
                AgentClientMessageSchema,
                create(AgentClientMessageSchema, {
                  message: {
                    case: "conversationAction",
                    value: create(ConversationActionSchema, {
                      action: { case: "cancelAction", value: { reason: "user pressed stop" } },
                    }),
                  },
                }),
              ),
            );
          }
          if (typeof reaction === "object") void appendMessage(reaction.append);
          if (reaction === "disconnect") {
            abort.abort();
            throw new DisconnectedError();
          }
        }
      }
    } catch (error) {
      if (!(error instanceof DisconnectedError)) throw error;
      end = {
        error: {
          code: "client_disconnected",
          message: "the scripted client dropped the stream",
          details: [],
        },
      };
    }
    return {
      requestId,
      messages,
      updates,
      text,
      thinking,
      checkpoints,
      turnEnded,
      end: end ?? {
        error: {
          code: "no_end_stream",
          message: "the stream ended without an end-stream frame",
          details: [],
        },
      },
      kv: { setBlobIds, getBlobIds, bytesSet },
      sequence,
    };
  }

  /** Reconnects to a request id's stream and reads it to its end (a replay of the backlog). */
  async reconnect({
    conversationId,
    requestId,
  }: {
    conversationId: string;
    requestId: string;
  }): Promise<Omit<IdeTurnResult, "appendErrors">> {
    const abort = new AbortController();
    const response = await this.#options.fetch(`${this.#options.baseUrl}${wireRoutes.runSse}`, {
      method: "POST",
      headers: this.#headers("application/connect+proto"),
      body: encodeEnvelope({
        payload: toBinary(BidiRequestIdSchema, create(BidiRequestIdSchema, { requestId })),
      }),
      signal: abort.signal,
    });
    return this.#read({
      response,
      input: { conversationId, onMessage: () => undefined },
      requestId,
      // A replay answers nothing: the original stream's answers were sent already.
      appendMessage: () => Promise.resolve(),
      abort,
    });
  }
}

class DisconnectedError extends Error {}

/** Runs at most `limit` tasks at once, starting them in the order they were given. */
class AppendSlots {
  readonly #limit: number;
  readonly #waiting: (() => void)[] = [];
  #running = 0;

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#limit) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    this.#running += 1;
    try {
      return await task();
    } finally {
      this.#running -= 1;
      this.#waiting.shift()?.();
    }
  }
}

function parseEndStream(payload: Uint8Array): IdeEndStream {
  const json = JSON.parse(new TextDecoder().decode(payload)) as {
    error?: { code: string; message: string; details?: { type: string; value: string }[] };
  };
  if (json.error === undefined) return {};
  return {
    error: {
      code: json.error.code,
      message: json.error.message,
      details: (json.error.details ?? [])
        .filter((detail) => detail.type === "aiserver.v1.ErrorDetails")
        .map((detail) => fromBinary(ErrorDetailsSchema, Buffer.from(detail.value, "base64"))),
    },
  };
}
