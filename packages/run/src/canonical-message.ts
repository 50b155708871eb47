import { z } from "zod";

/** Ids: 1..256 printable ASCII characters without spaces (message ids embed client ids). */
const idSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[\x21-\x7e]+$/, "ids are printable ASCII without spaces");

type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Marks a value that is not JSON while copying (a symbol, so no JSON value can be it). */
const notJson = Symbol("not JSON");

/**
 * A copy of a JSON value, or `notJson`. Objects are copied key by key as own properties, so a
 * key named `__proto__` (valid JSON, e.g. a tool argument's name) stays a property: a record
 * schema would assign it, which sets the copy's prototype instead and loses the property.
 */
function copyJsonValue(value: unknown, depth: number): JsonValue | typeof notJson {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : notJson;
  if (typeof value !== "object" || depth > maxJsonDepth) return notJson;
  if (Array.isArray(value)) {
    const items: JsonValue[] = [];
    for (const item of value) {
      const copy = copyJsonValue(item, depth + 1);
      if (copy === notJson) return notJson;
      items.push(copy);
    }
    return items;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return notJson;
  const object: { [key: string]: JsonValue } = {};
  for (const [key, item] of Object.entries(value)) {
    const copy = copyJsonValue(item, depth + 1);
    if (copy === notJson) return notJson;
    Object.defineProperty(object, key, {
      value: copy,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

/** Deeper JSON is refused rather than risking the stack (request limits are far lower). */
const maxJsonDepth = 512;

function jsonSchemaOf<T extends JsonValue>(
  accepts: (value: JsonValue) => value is T,
  message: string,
): z.ZodType<T> {
  return z.unknown().transform((value, context) => {
    const copy = copyJsonValue(value, 0);
    if (copy === notJson || !accepts(copy)) {
      context.addIssue({ code: "custom", message });
      return z.NEVER;
    }
    return copy;
  }) as unknown as z.ZodType<T>;
}

/** A JSON object (keys kept as own properties, `__proto__` included). */
const jsonObjectSchema: z.ZodType<{ [key: string]: JsonValue }> = jsonSchemaOf(
  (value): value is { [key: string]: JsonValue } =>
    typeof value === "object" && value !== null && !Array.isArray(value),
  "must be a JSON object",
);

/**
 * `^[A-Za-z0-9+/]*={0,2}$`, checked as one scan for a character outside the alphabet plus a look
 * at the padding: the anchored pattern runs several times slower on a multi-megabyte image, and
 * every stored message is validated again when it is read back.
 */
function isBase64(data: string): boolean {
  if (/[^A-Za-z0-9+/=]/.test(data)) return false;
  const padding = data.indexOf("=");
  return padding === -1 || (padding >= data.length - 2 && /^={1,2}$/.test(data.slice(padding)));
}

const textPartSchema = z.strictObject({ type: z.literal("text"), text: z.string() });
const imagePartSchema = z.strictObject({
  type: z.literal("image"),
  mimeType: z.string().regex(/^image\/[a-z0-9.+-]+$/, "an image mime type such as image/png"),
  data: z.string().refine(isBase64, "base64 data"),
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
  replay: jsonObjectSchema,
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

export { canonicalMessageSchema, jsonObjectSchema };

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
