import { z } from "zod";
import { checkpointIdSchema, sha256HexSchema } from "./checkpoint-state.js";

/**
 * Where a stored checkpoint lives, plus what a store wants to know about it without reading it
 * (the gateway answers `GET /v1/conversations/{id}` from these fields). Plain data: persist it as
 * JSON and read it back through `checkpointRefSchema`.
 */
export const checkpointRefSchema = z.strictObject({
  /** Id of the root object in the blob store. */
  rootId: sha256HexSchema,
  conversationId: checkpointIdSchema,
  epoch: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  headDigest: sha256HexSchema,
  messageCount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  turnCount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
});

export type CheckpointRef = z.infer<typeof checkpointRefSchema>;
