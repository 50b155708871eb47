import type { ConnectError } from "./connect-error.js";
import { connectHttpStatus } from "./connect-error.js";
import { encodeEnvelope, envelopeFlags } from "./envelope.js";
import { errorDetailsJson } from "./error-details.js";

/** The JSON of a Connect error: `{code, message, details?}` (details: `aiserver.v1.ErrorDetails`). */
function connectErrorJson(error: ConnectError): {
  code: string;
  message: string;
  details?: { type: string; value: string }[];
} {
  return {
    code: error.code,
    message: error.message,
    ...(error.detail === undefined ? {} : { details: [errorDetailsJson(error.detail)] }),
  };
}

/** The end-stream frame that closes a RunSSE stream: `{}` on success, `{"error": …}` on failure. */
export function encodeEndStream(error?: ConnectError): Uint8Array {
  const body = error === undefined ? {} : { error: connectErrorJson(error) };
  return encodeEnvelope({
    flags: envelopeFlags.endStream,
    payload: new TextEncoder().encode(JSON.stringify(body)),
  });
}

/** A unary reply: status, headers and body bytes, ready for any HTTP server. */
export interface UnaryReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** A unary Connect error reply (JSON body, the code's HTTP status). */
export function unaryErrorReply(error: ConnectError): UnaryReply {
  return {
    status: connectHttpStatus[error.code],
    headers: { "content-type": "application/json" },
    body: new TextEncoder().encode(JSON.stringify(connectErrorJson(error))),
  };
}

/** A successful unary reply carrying a serialized protobuf message. */
export function unaryProtoReply(body: Uint8Array): UnaryReply {
  return { status: 200, headers: { "content-type": "application/proto" }, body };
}
