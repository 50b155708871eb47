import { fromBinary } from "@bufbuild/protobuf";
import { ConnectError } from "./connect/connect-error.js";
import type { RequestHeaders } from "./connect/request-body.js";
import { singleMessageBytes, unaryMessageBytes } from "./connect/request-body.js";
import { AgentClientMessageSchema } from "./gen/agent_v1_pb.js";
import { BidiAppendRequestSchema, BidiRequestIdSchema } from "./gen/aiserver_v1_pb.js";
import { decodeHex } from "./hex.js";
import { isDefaultModelId, requestedModelId } from "./translate/resolve-model.js";

/** What a BidiAppend body says about its run, read without running anything. */
export interface PeekedAppend {
  /** The transport id tying this append to its RunSSE stream and the other appends. */
  readonly requestId: string;
  readonly appendSeqno: bigint;
  /** Present when the append carries the run's `run_request` (normally append 0). */
  readonly runRequest?: {
    readonly conversationId: string | undefined;
    /**
     * The model the run asks for (`requested_model.model_id`, else `model_details.model_id`; a
     * variant string cut at ':'); "" when it names none.
     */
    readonly modelId: string;
    /** True for "", `default` and `auto`: the gateway's first model would run it. */
    readonly isDefaultModel: boolean;
  };
}

/**
 * Reads a BidiAppend body (raw protobuf or one envelope; HTTP gzip undone when `headers` say so)
 * and returns its request id, seqno and, for a run request, the requested model id — so a proxy
 * can decide where the run goes before anything runs. The body is not consumed or changed.
 * Throws a `ConnectError` (`invalid_argument`) for a body that is not a BidiAppendRequest.
 */
export function peekRunRequest(
  body: Uint8Array,
  { headers = {} }: { headers?: RequestHeaders } = {},
): PeekedAppend {
  let append;
  let message;
  try {
    append = fromBinary(BidiAppendRequestSchema, unaryMessageBytes({ body, headers }));
    const payload =
      append.dataBinary.length > 0
        ? append.dataBinary
        : decodeHex(append.data, "BidiAppendRequest.data");
    message = fromBinary(AgentClientMessageSchema, payload);
  } catch (error) {
    if (ConnectError.isInstance(error)) throw error;
    throw new ConnectError({
      code: "invalid_argument",
      message: `not a BidiAppendRequest: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
  const requestId = append.requestId?.requestId ?? "";
  if (message.message.case !== "runRequest") return { requestId, appendSeqno: append.appendSeqno };
  const runRequest = message.message.value;
  const modelId = requestedModelId({
    requestedModel: runRequest.requestedModel,
    modelDetails: runRequest.modelDetails,
  });
  return {
    requestId,
    appendSeqno: append.appendSeqno,
    runRequest: {
      conversationId: runRequest.conversationId,
      modelId,
      isDefaultModel: isDefaultModelId(modelId),
    },
  };
}

/**
 * The request id a RunSSE body names (`BidiRequestId`, raw protobuf or one Connect envelope,
 * HTTP gzip undone when `headers` say so), so a proxy can hold the stream until the run's first
 * append names its model. Throws a `ConnectError` (`invalid_argument`) for a body that is not
 * one, or that names no request id.
 */
export function peekRunSse(
  body: Uint8Array,
  { headers = {} }: { headers?: RequestHeaders } = {},
): { readonly requestId: string } {
  let requestId: string;
  try {
    requestId = fromBinary(BidiRequestIdSchema, singleMessageBytes({ body, headers })).requestId;
  } catch (error) {
    if (ConnectError.isInstance(error)) throw error;
    throw new ConnectError({
      code: "invalid_argument",
      message: `not a BidiRequestId: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
  if (requestId === "") {
    throw new ConnectError({
      code: "invalid_argument",
      message: "the RunSSE body names no request id",
    });
  }
  return { requestId };
}
