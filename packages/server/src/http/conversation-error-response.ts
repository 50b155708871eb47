import { ConversationError, InvalidRunRequestError } from "../conversation-errors.js";
import { StoreError } from "../store/store-error.js";
import { HttpError } from "./http-error.js";

/**
 * The JSON contract's answer (docs/http-contract.md) to a refusal of the conversation service, or
 * undefined for anything that is not one.
 */
export function conversationErrorResponse(error: unknown): HttpError | undefined {
  if (StoreError.isInstance(error) && error.reason === "corrupt") {
    // Stored data that fails verification: the store's message names what, never a secret.
    return new HttpError("internal_error", error.message);
  }
  if (!ConversationError.isInstance(error)) return undefined;
  switch (error.code) {
    case "invalid_run_request":
      return new HttpError(
        "invalid_request",
        error.message,
        InvalidRunRequestError.isInstance(error) ? error.issues : undefined,
      );
    case "conversation_not_found":
      return new HttpError("not_found", error.message);
    case "conversation_busy":
    case "run_conflict":
    case "gateway_closing":
      return new HttpError("conflict", error.message);
    case "invalid_checkpoint":
      return new HttpError("invalid_checkpoint", error.message);
    case "unknown_model":
      return new HttpError("invalid_request", error.message, [
        { path: "model", message: error.message },
      ]);
    default: {
      const exhaustive: never = error.code;
      throw new Error(`unmapped conversation error ${String(exhaustive)}`);
    }
  }
}
