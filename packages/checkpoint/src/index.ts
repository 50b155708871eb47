export const packageName = "@cursor/checkpoint";

export { MemoryBlobStore } from "./blob-store.js";
export type { Awaitable, BlobStore, StoredBlob } from "./blob-store.js";
export { CheckpointError, checkpointErrorReasons } from "./checkpoint-error.js";
export type { CheckpointErrorReason } from "./checkpoint-error.js";
export { checkpointRefSchema } from "./checkpoint-ref.js";
export type { CheckpointRef } from "./checkpoint-ref.js";
export {
  checkpointFormatVersion,
  checkpointMetadataSchema,
  checkpointStateSchema,
  checkpointTurnSchema,
} from "./checkpoint-state.js";
export type { CheckpointMetadata, CheckpointState, CheckpointTurn } from "./checkpoint-state.js";
export {
  checkpointDeltaTokenVersion,
  decodeCheckpointChain,
  encodeCheckpointDelta,
  inspectCheckpointDelta,
} from "./checkpoint-delta.js";
export type {
  CheckpointDeltaBase,
  CheckpointDeltaSummary,
  DecodeCheckpointChainOptions,
} from "./checkpoint-delta.js";
export { createCheckpointState } from "./create-checkpoint-state.js";
export { decodeCheckpoint, inspectCheckpoint } from "./decode-checkpoint.js";
export type { CheckpointSummary, DecodeCheckpointOptions } from "./decode-checkpoint.js";
export { createCheckpointEncodeCache } from "./encode-cache.js";
export type {
  CheckpointEncodeCache,
  CheckpointEncodeCacheScope,
  CheckpointEncodeCacheStats,
} from "./encode-cache.js";
export { checkpointTokenVersion, encodeCheckpoint } from "./encode-checkpoint.js";
export { hydrateCheckpoint } from "./hydrate-checkpoint.js";
export type { HydratedCheckpoint } from "./hydrate-checkpoint.js";
export { readCheckpoint } from "./read-checkpoint.js";
export { defaultMaxCheckpointBytes, minimumSecretBytes } from "./token-codec.js";
export { writeCheckpoint } from "./write-checkpoint.js";
export type { WriteCheckpointResult } from "./write-checkpoint.js";
