import { create, toBinary } from "@bufbuild/protobuf";
import {
  CustomErrorDetailsSchema,
  ErrorDetails_Error,
  ErrorDetailsSchema,
} from "../gen/aiserver_v1_pb.js";
import type { ConnectErrorDetail, ErrorDetailKind } from "./connect-error.js";

const errorKinds: Readonly<Record<ErrorDetailKind, ErrorDetails_Error>> = Object.freeze({
  "bad-model-name": ErrorDetails_Error.BAD_MODEL_NAME,
  "custom-message": ErrorDetails_Error.CUSTOM_MESSAGE,
  "bad-request": ErrorDetails_Error.BAD_REQUEST,
  "conversation-too-long": ErrorDetails_Error.CONVERSATION_TOO_LONG,
  "provider-error": ErrorDetails_Error.PROVIDER_ERROR,
  timeout: ErrorDetails_Error.TIMEOUT,
  internal: ErrorDetails_Error.INTERNAL,
});

/** The serialized `aiserver.v1.ErrorDetails` of a detail. */
function encodeErrorDetails(detail: ConnectErrorDetail): Uint8Array {
  return toBinary(
    ErrorDetailsSchema,
    create(ErrorDetailsSchema, {
      error: errorKinds[detail.kind],
      details: create(CustomErrorDetailsSchema, {
        title: detail.title,
        detail: detail.detail,
        isRetryable: detail.retryable,
        showRequestId: true,
        shouldShowImmediateError: false,
      }),
      isExpected: detail.expected ?? false,
    }),
  );
}

/** `details` entry of a Connect error JSON: the type name and the base64 message (no padding). */
export function errorDetailsJson(detail: ConnectErrorDetail): { type: string; value: string } {
  return {
    type: "aiserver.v1.ErrorDetails",
    value: Buffer.from(encodeErrorDetails(detail)).toString("base64").replace(/=+$/, ""),
  };
}
