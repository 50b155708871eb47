import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { EnvelopeDecoder, encodeEnvelope, envelopeFlags } from "../connect/envelope.js";
import type { CursorWire } from "../cursor-wire.js";
import type { AgentServerMessage } from "../gen/agent_v1_pb.js";
import { AgentClientMessageSchema, AgentServerMessageSchema } from "../gen/agent_v1_pb.js";
import { BidiAppendRequestSchema, BidiRequestIdSchema } from "../gen/aiserver_v1_pb.js";
import { toHex } from "../hex.js";

/** A BidiAppend body carrying `message` (hex, as the IDE sends it). */
export function appendBody({
  requestId,
  seqno,
  message,
  data,
}: {
  requestId: string;
  seqno: number;
  message?: MessageInitShape<typeof AgentClientMessageSchema>;
  /** Raw `data` instead of the hex of `message`. */
  data?: string;
}): Uint8Array {
  return toBinary(
    BidiAppendRequestSchema,
    create(BidiAppendRequestSchema, {
      data:
        data ??
        toHex(toBinary(AgentClientMessageSchema, create(AgentClientMessageSchema, message ?? {}))),
      requestId: create(BidiRequestIdSchema, { requestId }),
      appendSeqno: BigInt(seqno),
    }),
  );
}

export function runRequestMessage({
  conversationId,
  text = "hi",
  messageId = "m-1",
}: {
  conversationId: string;
  text?: string;
  messageId?: string;
}): MessageInitShape<typeof AgentClientMessageSchema> {
  return {
    message: {
      case: "runRequest",
      value: {
        conversationId,
        action: {
          action: {
            case: "userMessageAction",
            value: { userMessage: { text, messageId, mode: 2 } },
          },
        },
      },
    },
  };
}

/** A RunSSE response that records frames; `messages` and `endJson` decode them. */
export class RecordingStream {
  readonly chunks: Uint8Array[] = [];
  status = 0;
  headers: Readonly<Record<string, string>> = {};
  ended = false;
  readonly done: Promise<void>;

  constructor(
    wire: CursorWire,
    requestId: string,
    {
      signal,
      answerKvFrom,
    }: {
      signal?: AbortSignal;
      /** Answer every set_blob_args with an error-free result, appends numbered from this seqno. */
      answerKvFrom?: number;
    } = {},
  ) {
    let seqno = answerKvFrom ?? 0;
    const decoder = new EnvelopeDecoder();
    this.done = wire.runSse({
      headers: { "content-type": "application/connect+proto" },
      body: encodeEnvelope({
        payload: toBinary(BidiRequestIdSchema, create(BidiRequestIdSchema, { requestId })),
      }),
      ...(signal === undefined ? {} : { signal }),
      response: {
        start: (status, headers) => {
          this.status = status;
          this.headers = headers;
        },
        write: (chunk) => {
          this.chunks.push(chunk.slice());
          if (answerKvFrom === undefined) return;
          for (const frame of decoder.push(chunk.slice())) {
            if ((frame.flags & envelopeFlags.endStream) !== 0) continue;
            const message = fromBinary(AgentServerMessageSchema, frame.payload);
            if (
              message.message.case === "kvServerMessage" &&
              message.message.value.message.case === "setBlobArgs"
            ) {
              const id = message.message.value.id;
              const current = seqno;
              seqno += 1;
              void wire.bidiAppend({
                headers: {},
                body: appendBody({
                  requestId,
                  seqno: current,
                  message: {
                    message: {
                      case: "kvClientMessage",
                      value: { id, message: { case: "setBlobResult", value: {} } },
                    },
                  },
                }),
              });
            }
          }
        },
        end: () => {
          this.ended = true;
        },
      },
    });
  }

  #frames() {
    const decoder = new EnvelopeDecoder();
    return this.chunks.flatMap((chunk) => decoder.push(chunk));
  }

  get messages(): AgentServerMessage[] {
    return this.#frames()
      .filter((frame) => (frame.flags & envelopeFlags.endStream) === 0)
      .map((frame) => fromBinary(AgentServerMessageSchema, frame.payload));
  }

  get kinds(): string[] {
    return this.messages.map((message) =>
      message.message.case === "interactionUpdate"
        ? (message.message.value.message.case ?? "?")
        : (message.message.case ?? "?"),
    );
  }

  get endJson(): { error?: { code: string; message: string } } | undefined {
    const end = this.#frames().find((frame) => (frame.flags & envelopeFlags.endStream) !== 0);
    return end === undefined ? undefined : JSON.parse(new TextDecoder().decode(end.payload));
  }
}

export function replyJson(reply: { status: number; body: Uint8Array }): {
  status: number;
  code?: string;
  message?: string;
} {
  if (reply.status === 200) return { status: 200 };
  const json = JSON.parse(new TextDecoder().decode(reply.body)) as {
    code: string;
    message: string;
  };
  return { status: reply.status, code: json.code, message: json.message };
}

export const tick = () => new Promise((resolve) => setImmediate(resolve));
