import { z } from "zod";
import { canonicalJson, canonicalizeJsonValue, deepFreeze, sha256Hex } from "./canonical-json.js";
import { jsonObjectSchema } from "./canonical-message.js";
import type { JsonObject } from "./canonical-message.js";
import { InvalidHistoryError } from "./errors.js";

const toolSpecSchema = z.strictObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "tool names are 1..64 of [a-zA-Z0-9_-]"),
  description: z.string(),
  inputSchema: jsonObjectSchema,
});

const promptSpecInputSchema = z.strictObject({
  instructions: z.string().min(1),
  tools: z.array(toolSpecSchema),
});

export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments, held in canonical key order. */
  readonly inputSchema: Readonly<JsonObject>;
}

/** What the model is told once per conversation: instructions and the tool catalog. */
export interface PromptSpec {
  readonly instructions: string;
  readonly tools: readonly ToolSpec[];
  /** SHA-256 of the canonical JSON of instructions + tools; equal specs have equal digests. */
  readonly digest: string;
}

export type PromptSpecInput = z.input<typeof promptSpecInputSchema>;

/**
 * Builds a frozen prompt spec. Tool order is kept as given (the caller decides it, e.g. fixed
 * tools then MCP tools by name); schemas are rewritten in canonical key order so equal inputs
 * give byte-equal output whatever key order they arrived in. Duplicate tool names throw.
 */
export function createPromptSpec(input: PromptSpecInput): PromptSpec {
  const parsed = promptSpecInputSchema.safeParse(input);
  if (!parsed.success) {
    throw new InvalidHistoryError({
      message: `invalid prompt spec: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      cause: parsed.error,
    });
  }
  const seen = new Set<string>();
  const tools = parsed.data.tools.map((tool) => {
    if (seen.has(tool.name)) {
      throw new InvalidHistoryError({
        message: `duplicate tool name in prompt spec: ${tool.name}`,
      });
    }
    seen.add(tool.name);
    return {
      name: tool.name,
      description: tool.description,
      inputSchema: canonicalizeJsonValue(tool.inputSchema) as JsonObject,
    };
  });
  const digest = sha256Hex(canonicalJson({ instructions: parsed.data.instructions, tools }));
  return deepFreeze({ instructions: parsed.data.instructions, tools, digest });
}
