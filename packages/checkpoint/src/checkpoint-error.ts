import { CursorError } from "@cursor/run";

/**
 * Why a checkpoint was refused. One error class with a precise reason lets callers map failures
 * (the gateway answers `400 invalid_checkpoint` for most, `409 conflict` for a foreign
 * conversation) without string matching.
 */
export const checkpointErrorReasons = [
  /** Not a checkpoint at all: bad framing, bad base64url, unparseable or off-schema content. */
  "malformed",
  /** Fewer parts or bytes than the authenticated header declares. */
  "truncated",
  /** The MAC does not verify: tampered, another secret, or another audience (tenant). */
  "bad-mac",
  /** A format version this build cannot read. */
  "unknown-version",
  /** Over the size limit, before or after decompression. */
  "too-large",
  /** A blob's bytes do not hash to its id. */
  "blob-mismatch",
  /** The manifest disagrees with itself or with the reference (counts, chunk links, layout). */
  "manifest-mismatch",
  /** The chained digest of the messages differs from the recorded head digest. */
  "head-mismatch",
  /** The blob store lacks an object the manifest references. */
  "missing-blob",
  /** The messages are well-formed but do not form a valid history (tool rounds, ids). */
  "invalid-history",
  /** A state handed to encode/write does not satisfy the checkpoint state schema. */
  "invalid-state",
  /** The signing secret is unusable (too short). */
  "invalid-secret",
  /** A valid checkpoint of another conversation than the one expected. */
  "foreign-conversation",
  /**
   * A delta checkpoint decoded without the checkpoints before it (its base): the receiver needs
   * the whole chain (`decodeCheckpointChain`) or must already hold the base.
   */
  "incomplete",
] as const;

export type CheckpointErrorReason = (typeof checkpointErrorReasons)[number];

const checkpointErrorMarker = Symbol.for("cursor.error.checkpoint");

/** Every refusal of this package: nothing partial is ever returned alongside it. */
export class CheckpointError extends CursorError {
  readonly [checkpointErrorMarker] = true;
  readonly reason: CheckpointErrorReason;
  /** The blob, chunk or root the failure is about, when there is one. */
  readonly objectId: string | undefined;
  constructor(options: {
    reason: CheckpointErrorReason;
    message: string;
    objectId?: string;
    cause?: unknown;
  }) {
    super({ name: "CheckpointError", message: options.message, cause: options.cause });
    this.reason = options.reason;
    this.objectId = options.objectId;
  }
  static override isInstance(error: unknown): error is CheckpointError {
    return typeof error === "object" && error !== null && checkpointErrorMarker in error;
  }
}
