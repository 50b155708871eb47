import { canonicalMessageSchema } from "@cursor/run";
import { z } from "zod";
import { CheckpointError } from "./checkpoint-error.js";

/**
 * The format version this build writes. Version 1 (a single compressed JSON document) is still
 * decoded; version 2 is content-addressed: message blobs grouped in fixed-size chunks.
 */
export const checkpointFormatVersion = 2;

/** Same rules as message ids in @cursor/run: 1..256 printable ASCII characters, no spaces. */
export const checkpointIdSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[\x21-\x7e]+$/, "ids are printable ASCII without spaces");

export const sha256HexSchema = z.string().regex(/^[0-9a-f]{64}$/, "a lowercase SHA-256 hex digest");

/** One user turn: who asked (client message, event, run) and which messages the turn added. */
export const checkpointTurnSchema = z.strictObject({
  clientMessageId: checkpointIdSchema,
  eventId: checkpointIdSchema,
  runId: checkpointIdSchema,
  messageIds: z.array(checkpointIdSchema),
});

/** Everything of a state except its two growing lists; small, validated on every call. */
const checkpointMetadataShape = {
  formatVersion: z.literal(checkpointFormatVersion),
  conversationId: checkpointIdSchema,
  epoch: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  latestRequestContextId: checkpointIdSchema.optional(),
  promptSpecDigest: sha256HexSchema.optional(),
  /** Must equal `HistoryLog.headDigest` of `epoch` + `messages`. */
  headDigest: sha256HexSchema,
};

export const checkpointMetadataSchema = z.strictObject(checkpointMetadataShape);

export const checkpointStateSchema = z.strictObject({
  ...checkpointMetadataShape,
  /** The stable roots: the current epoch's canonical messages, oldest first. */
  messages: z.array(canonicalMessageSchema),
  turns: z.array(checkpointTurnSchema),
});

export type CheckpointTurn = z.infer<typeof checkpointTurnSchema>;
export type CheckpointState = z.infer<typeof checkpointStateSchema>;
export type CheckpointMetadata = z.infer<typeof checkpointMetadataSchema>;

/** Formats zod issues as `path: message; ...` for error messages. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
}

// Encoders validate the growing lists element by element (and only elements they have not seen,
// see content-id.ts), so the envelope checks just that they are arrays: O(1) per call.
const stateEnvelopeSchema = z.strictObject({
  ...checkpointMetadataShape,
  messages: z.custom<readonly unknown[]>((value) => Array.isArray(value), "an array"),
  turns: z.custom<readonly unknown[]>((value) => Array.isArray(value), "an array"),
});

export interface StateEnvelope {
  readonly metadata: CheckpointMetadata;
  readonly messages: readonly unknown[];
  readonly turns: readonly unknown[];
}

/** Validates everything of a state but the list elements; throws `invalid-state`. */
export function parseStateEnvelope(state: unknown): StateEnvelope {
  const parsed = stateEnvelopeSchema.safeParse(state);
  if (!parsed.success) {
    throw new CheckpointError({
      reason: "invalid-state",
      message: `invalid checkpoint state: ${describeIssues(parsed.error)}`,
      cause: parsed.error,
    });
  }
  const { messages, turns, ...metadata } = parsed.data;
  return { metadata, messages, turns };
}
