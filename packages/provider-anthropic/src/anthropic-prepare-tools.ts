import { deepFreeze } from "@cursor/run";
import type { JsonValue, ModelRequest, ToolSpec, Warning } from "@cursor/run";
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
    const converted = convertTool(tool, index);
    if (converted.warning !== undefined) warnings.push(converted.warning);
    return converted.tool;
  });
  return { tools, warnings };
}

interface ConvertedTool {
  readonly index: number;
  readonly tool: AnthropicTool;
  readonly warning?: Warning | undefined;
}

// A prompt spec's tools are frozen and the same objects at the same places on every turn: each
// converts once (its warning names its index, so a tool met at another index converts again).
const convertedTools = new WeakMap<ToolSpec, ConvertedTool>();

function convertTool(tool: ToolSpec, index: number): ConvertedTool {
  const cached = convertedTools.get(tool);
  if (cached !== undefined && cached.index === index) return cached;
  const { schema, warning } = toInputSchema({
    inputSchema: tool.inputSchema,
    path: `tools[${index}].inputSchema`,
  });
  const converted: AnthropicTool = {
    name: tool.name,
    description: tool.description,
    input_schema: schema,
  };
  // Only a frozen tool (its schema frozen with it) is known never to change under its wire form.
  if (!Object.isFrozen(tool)) return { index, tool: converted, warning };
  const held: ConvertedTool = { index, tool: deepFreeze(converted), warning };
  convertedTools.set(tool, held);
  return held;
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
