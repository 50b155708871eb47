import {
  CheckpointError,
  checkpointDeltaTokenVersion,
  decodeCheckpointChain,
  encodeCheckpoint,
  encodeCheckpointDelta,
  inspectCheckpoint,
  inspectCheckpointDelta,
} from "@cursor/checkpoint";
import type { CheckpointEncodeCache, CheckpointSummary } from "@cursor/checkpoint";
import { headFromCheckpointState, headToCheckpointState } from "@cursor/projection";
import type { ConversationHead } from "@cursor/projection";
import { emptyHeadDigest } from "@cursor/run";
import { ZodError } from "zod";
import { InvalidCheckpointError, RunConflictError } from "./conversation-errors.js";

const deltaPrefix = `cp${checkpointDeltaTokenVersion}.`;

/** The head a run started from, as a delta checkpoint's base (what the client holds). */
export interface CheckpointBase {
  readonly epoch: number;
  readonly messageCount: number;
  readonly turnCount: number;
  readonly headDigest: string;
}

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
  }): CheckpointSummary {
    try {
      const options = { token, secret: this.#secret, audience: tenant, conversationId };
      // A delta's segments are small: its digests are checked too.
      return token.startsWith(deltaPrefix)
        ? inspectCheckpointDelta(options)
        : inspectCheckpoint(options);
    } catch (error) {
      refusal({ error, conversationId });
    }
  }

  /** The refusal of a delta sent alone where its whole chain is needed (409 checkpoint_incomplete). */
  chainNeeded({ conversationId, why }: { conversationId: string; why: string }): never {
    throw new InvalidCheckpointError({
      message: `conversation ${conversationId}: ${why}, and the checkpoint is a delta: send every checkpoint of the epoch in checkpointChain`,
      incomplete: true,
    });
  }

  /**
   * Decodes and verifies a checkpoint, or a chain of them (a full one or a delta from the start,
   * then deltas), entirely: MACs, segments, every blob, the links and the head digest.
   */
  decode({
    tokens,
    tenant,
    conversationId,
  }: {
    tokens: readonly string[];
    tenant: string;
    conversationId: string;
  }): ConversationHead {
    try {
      return headFromCheckpointState(
        decodeCheckpointChain({ tokens, secret: this.#secret, audience: tenant, conversationId }),
      );
    } catch (error) {
      refusal({ error, conversationId });
    }
  }

  /**
   * The delta token of `head` after `base` (the head the run started from, which the client
   * holds): the messages and turns added since. A run that started a new epoch sends the epoch
   * from its start, with every turn record (turns span epochs), so the client's chain restarts.
   */
  encodeDelta({
    head,
    base,
    tenant,
    promptSpecDigest,
  }: {
    head: ConversationHead;
    base: CheckpointBase;
    tenant: string;
    promptSpecDigest: string;
  }): string {
    return encodeCheckpointDelta({
      state: headToCheckpointState(head, { promptSpecDigest }),
      base: deltaBase(base, head.history.epoch),
      secret: this.#secret,
      audience: tenant,
    });
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
    /** Undefined: a one-off encoding of a head that is not the conversation's current one. */
    cache: CheckpointEncodeCache | undefined;
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
    if (error.reason === "incomplete") {
      throw new InvalidCheckpointError({
        message: `this gateway does not hold conversation ${conversationId} and the checkpoint is a delta: send every checkpoint of the epoch in checkpointChain`,
        incomplete: true,
        cause: error,
      });
    }
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

/** The base of a delta to `epoch`: `base` itself, or the start of a new epoch (all turns). */
export function deltaBase(
  base: CheckpointBase,
  epoch: number,
): { messageCount: number; turnCount: number; headDigest: string } {
  return base.epoch === epoch
    ? { messageCount: base.messageCount, turnCount: base.turnCount, headDigest: base.headDigest }
    : { messageCount: 0, turnCount: 0, headDigest: emptyHeadDigest(epoch) };
}
