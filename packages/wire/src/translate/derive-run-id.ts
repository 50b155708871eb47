import { canonicalJson, sha256Hex } from "@cursor/run";
import { ConnectError } from "../connect/connect-error.js";

const clientIdPattern = /^[\x21-\x7e]{1,128}$/;

/**
 * The JSON contract's `runId` of a Cursor run: the client's `run_id` when it sends one (the
 * same on every retry of the run), else derived from what identifies the run — the
 * conversation, the mode, the translated action and the compiled request context's digest —
 * so a retry of the same message is the same run and an edited message is another.
 */
export function deriveRunId({
  clientRunId,
  conversationId,
  identity,
}: {
  clientRunId: string | undefined;
  conversationId: string;
  identity: unknown;
}): string {
  if (clientRunId !== undefined && clientRunId !== "") {
    if (!clientIdPattern.test(clientRunId)) {
      throw new ConnectError({
        code: "invalid_argument",
        message: "run_request.run_id must be 1..128 printable ASCII characters without spaces",
      });
    }
    return clientRunId;
  }
  return `cursor-${sha256Hex(canonicalJson({ conversationId, identity })).slice(0, 32)}`;
}
