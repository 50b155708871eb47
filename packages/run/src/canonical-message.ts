import { z } from "zod";

/** Ids: 1..256 printable ASCII characters without spaces (message ids embed client ids). */
const idSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[\x21-\x7e]+$/, "ids are printable ASCII without spaces");

type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonValueSchema),
    z.record(z.string(), jsonValueSchema),
  ]),
);

const textPartSchema = z.strictObject({ type: z.literal("text"), text: z.string() });
const imagePartSchema = z.strictObject({
  type: z.literal("image"),
  mimeType: z.string().regex(/^image\/[a-z0-9.+-]+$/, "an image mime type such as image/png"),
  data: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, "base64 data"),
});
const contentPartSchema = z.discriminatedUnion("type", [textPartSchema, imagePartSchema]);

const toolCallSchema = z.strictObject({
  index: z.number().int().min(0),
  callId: idSchema,
  name: z.string().min(1).max(128),
  /** The exact JSON text the model produced; never re-serialised. */
  arguments: z.string(),
});

const runtimeKindSchema = z.enum(["user-turn", "background-completion", "injected-context"]);

const requestContextMessageSchema = z.strictObject({
  kind: z.literal("request-context"),
  id: idSchema,
  role: z.literal("user"),
  origin: z.literal("prompt"),
  eventId: idSchema,
  /** Content digest of the compiled request context; layers above compare contexts by it. */
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  text: z.string(),
});

const runtimeMessageSchema = z.strictObject({
  kind: z.literal("runtime"),
  id: idSchema,
  role: z.literal("user"),
  origin: z.literal("runtime"),
  eventId: idSchema,
  runtimeKind: runtimeKindSchema,
  content: z.array(contentPartSchema).min(1),
});

const userMessageSchema = z.strictObject({
  kind: z.literal("user"),
  id: idSchema,
  role: z.literal("user"),
  origin: z.literal("user"),
  content: z.array(contentPartSchema).min(1),
});

const summaryMessageSchema = z.strictObject({
  kind: z.literal("summary"),
  id: idSchema,
  role: z.literal("user"),
  origin: z.literal("prompt"),
  /** The epoch this summary replaced. */
  summarizedEpoch: z.number().int().min(0),
  text: z.string(),
});

const assistantMessageSchema = z.strictObject({
  kind: z.literal("assistant"),
  id: idSchema,
  role: z.literal("assistant"),
  origin: z.literal("assistant"),
  text: z.string(),
  reasoning: z.string(),
  toolCalls: z.array(toolCallSchema),
  /**
   * Opaque provider replay state keyed by provider id (encrypted reasoning items, thinking
   * signatures). The core never interprets it; only the provider that produced it replays it.
   */
  replay: z.record(z.string(), jsonValueSchema),
});

const toolResultMessageSchema = z.strictObject({
  kind: z.literal("tool-result"),
  id: idSchema,
  role: z.literal("tool"),
  origin: z.literal("tool"),
  callId: idSchema,
  name: z.string().min(1).max(128),
  content: z.string(),
  isError: z.boolean(),
  image: imagePartSchema.optional(),
});

const canonicalMessageSchema = z.discriminatedUnion("kind", [
  requestContextMessageSchema,
  runtimeMessageSchema,
  userMessageSchema,
  summaryMessageSchema,
  assistantMessageSchema,
  toolResultMessageSchema,
]);

export { canonicalMessageSchema, jsonValueSchema };

export type JsonObject = { [key: string]: JsonValue };
export type { JsonValue };
export type TextPart = z.infer<typeof textPartSchema>;
export type ImagePart = z.infer<typeof imagePartSchema>;
export type ContentPart = z.infer<typeof contentPartSchema>;
export type ToolCall = z.infer<typeof toolCallSchema>;
export type RuntimeKind = z.infer<typeof runtimeKindSchema>;
export type RequestContextMessage = z.infer<typeof requestContextMessageSchema>;
export type RuntimeMessage = z.infer<typeof runtimeMessageSchema>;
export type UserMessage = z.infer<typeof userMessageSchema>;
export type SummaryMessage = z.infer<typeof summaryMessageSchema>;
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;
export type ToolResultMessage = z.infer<typeof toolResultMessageSchema>;
export type CanonicalMessage = z.infer<typeof canonicalMessageSchema>;
export type CanonicalMessageKind = CanonicalMessage["kind"];
export type Role = CanonicalMessage["role"] | "system";
export type Origin = CanonicalMessage["origin"];
