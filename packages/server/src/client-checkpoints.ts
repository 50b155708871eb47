import {
  CheckpointError,
  decodeCheckpoint,
  encodeCheckpoint,
  inspectCheckpoint,
} from "@cursor/checkpoint";
import type { CheckpointEncodeCache } from "@cursor/checkpoint";
import { headFromCheckpointState, headToCheckpointState } from "@cursor/projection";
import type { ConversationHead } from "@cursor/projection";
import { ZodError } from "zod";
import { InvalidCheckpointError, RunConflictError } from "./conversation-errors.js";

/**
 * The JSON contract's client checkpoints (`checkpoint` in a request, the `checkpoint` SSE event):
 * signed with the gateway's secret, bound to the tenant (audience) and the conversation.
 */
export class ClientCheckpoints {
  readonly #secret: string;

  constructor({ secret }: { secret: string }) {
    this.#secret = secret;
  }

  /**
   * Checks a checkpoint's MAC and header without decoding its history (the store has the
   * conversation, so it is not used, but a tampered one is still refused).
   */
  inspect({
    token,
    tenant,
    conversationId,
  }: {
    token: string;
    tenant: string;
    conversationId: string;
  }): void {
    try {
      inspectCheckpoint({ token, secret: this.#secret, audience: tenant, conversationId });
    } catch (error) {
      refusal({ error, conversationId });
    }
  }

  /** Decodes and verifies the whole checkpoint (MAC, segments, every blob, the head digest). */
  decode({
    token,
    tenant,
    conversationId,
  }: {
    token: string;
    tenant: string;
    conversationId: string;
  }): ConversationHead {
    try {
      return headFromCheckpointState(
        decodeCheckpoint({ token, secret: this.#secret, audience: tenant, conversationId }),
      );
    } catch (error) {
      refusal({ error, conversationId });
    }
  }

  /** The token of `head`; `cache` (the conversation's) re-encodes only what is new. */
  encode({
    head,
    tenant,
    promptSpecDigest,
    cache,
  }: {
    head: ConversationHead;
    tenant: string;
    promptSpecDigest: string;
    cache: CheckpointEncodeCache;
  }): string {
    return encodeCheckpoint({
      state: headToCheckpointState(head, { promptSpecDigest }),
      secret: this.#secret,
      audience: tenant,
      cache,
    });
  }
}

/** A checkpoint of another conversation is a conflict; anything else wrong with it is invalid. */
function refusal({ error, conversationId }: { error: unknown; conversationId: string }): never {
  if (CheckpointError.isInstance(error)) {
    if (error.reason === "foreign-conversation") {
      throw new RunConflictError({
        conversationId,
        message: "the checkpoint belongs to another conversation",
        cause: error,
      });
    }
    throw new InvalidCheckpointError({
      message: `invalid checkpoint (${error.reason}): ${error.message}`,
      cause: error,
    });
  }
  if (error instanceof ZodError) {
    throw new InvalidCheckpointError({
      message: `invalid checkpoint: ${error.message}`,
      cause: error,
    });
  }
  throw error;
}
