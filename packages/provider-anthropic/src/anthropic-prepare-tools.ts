import type { JsonValue, ModelRequest, Warning } from "@cursor/run";
import type { AnthropicTool, AnthropicToolInputSchema } from "./anthropic-api.js";

/**
 * The `tools` list, in prompt-spec order with each schema as given (already canonical key
 * order), so it serialises byte-identically while the prompt spec is unchanged.
 *
 * Tool choice and allowed tools: the Messages API has no allowed-tools restriction, and both
 * `tools` and `tool_choice` are part of the cache prefix — changing either per mode would
 * invalidate every cached turn. So `tool_choice` is never sent (the API default, `auto`), the
 * full tool list is always sent, and `request.allowedTools` is deliberately a no-op here: the
 * runtime message of each turn already tells the model which tools the current mode allows.
 * This is not an oddity of one request, so it produces no warning.
 */
export function prepareAnthropicTools(request: Pick<ModelRequest, "tools">): {
  tools: AnthropicTool[];
  warnings: Warning[];
} {
  const warnings: Warning[] = [];
  const tools = request.tools.map((tool, index): AnthropicTool => {
    const { schema, warning } = toInputSchema({
      inputSchema: tool.inputSchema,
      path: `tools[${index}].inputSchema`,
    });
    if (warning !== undefined) warnings.push(warning);
    return { name: tool.name, description: tool.description, input_schema: schema };
  });
  return { tools, warnings };
}

/**
 * The API requires an object schema. A schema without `type` (e.g. `{}` for "no arguments") is
 * an object schema in practice, so `type: "object"` is added in front; any other top-level type
 * cannot be expressed and is replaced by an empty object schema with a warning.
 */
function toInputSchema({
  inputSchema,
  path,
}: {
  inputSchema: Readonly<Record<string, JsonValue>>;
  path: string;
}): { schema: AnthropicToolInputSchema; warning?: Warning } {
  const declaredType = inputSchema["type"];
  if (declaredType === "object") {
    return { schema: { ...inputSchema, type: "object" } };
  }
  if (declaredType === undefined) {
    return { schema: { type: "object", ...inputSchema } };
  }
  return {
    schema: { type: "object" },
    warning: {
      type: "unsupported",
      message: `tool input schema of type ${JSON.stringify(declaredType)} is not an object schema; sent as {"type":"object"}`,
      path,
    },
  };
}
