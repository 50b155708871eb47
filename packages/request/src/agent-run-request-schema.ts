import { z } from "zod";
import { agentActionSchema } from "./agent-action-schema.js";
import { requestLimits } from "./limits.js";
import { requestContextInputSchema } from "./request-context-schema.js";
import { clientIdSchema } from "./schema-primitives.js";

export const agentModes = ["agent", "ask", "plan", "debug"] as const;
export const agentModeSchema = z.enum(agentModes);

export const conversationIdSchema = z
  .string()
  .min(1, "must not be empty")
  .max(
    requestLimits.maxConversationIdLength,
    `must be at most ${requestLimits.maxConversationIdLength} characters`,
  )
  .regex(/^[A-Za-z0-9._:-]+$/, "must use only A-Z, a-z, 0-9, '.', '_', ':' and '-'");

/** The body of `POST /v1/runs` (docs/http-contract.md). Strict: an unknown field is an error. */
export const agentRunRequestSchema = z.strictObject({
  conversationId: conversationIdSchema,
  runId: clientIdSchema,
  mode: agentModeSchema,
  model: z
    .string()
    .min(1, "must not be empty")
    .max(requestLimits.maxModelLength, `must be at most ${requestLimits.maxModelLength} characters`)
    .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces")
    .optional(),
  /** The turn's clock: ISO 8601 with an offset (or Z). */
  timestamp: z.iso
    .datetime({ offset: true, message: "must be an ISO 8601 date-time with an offset" })
    .optional(),
  action: agentActionSchema,
  requestContext: requestContextInputSchema.optional(),
  checkpoint: z
    .string()
    .min(1, "must not be empty")
    .max(requestLimits.maxCheckpointBytes, "must be at most 32 MiB")
    .optional(),
});

export type AgentMode = z.infer<typeof agentModeSchema>;
export type AgentRunRequest = z.infer<typeof agentRunRequestSchema>;
