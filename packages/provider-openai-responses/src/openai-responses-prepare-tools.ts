import { deepFreeze } from "@cursor/run";
import type { ToolSpec, Warning } from "@cursor/run";
import type {
  OpenAIResponsesFunctionTool,
  OpenAIResponsesToolChoice,
} from "./openai-responses-api.js";
import { isStrictCompatibleSchema } from "./openai-responses-strict-schema.js";

export interface PrepareOpenAIResponsesToolsResult {
  /** Absent when the request has no tools (the API refuses an empty list with a tool choice). */
  readonly tools?: OpenAIResponsesFunctionTool[];
  readonly toolChoice?: OpenAIResponsesToolChoice;
  readonly warnings: Warning[];
}

// A prompt spec's tools are frozen and the same objects on every turn: each converts (and has its
// schema checked for strict mode) once.
const convertedTools = new WeakMap<ToolSpec, OpenAIResponsesFunctionTool>();

function convertTool(tool: ToolSpec): OpenAIResponsesFunctionTool {
  const cached = convertedTools.get(tool);
  if (cached !== undefined) return cached;
  const converted = deepFreeze(toFunctionTool(tool));
  if (Object.isFrozen(tool)) convertedTools.set(tool, converted);
  return converted;
}

function toFunctionTool(tool: ToolSpec): OpenAIResponsesFunctionTool {
  return {
    type: "function",
    name: tool.name,
    description: tool.description,
    // Already in canonical key order (PromptSpec); passed through untouched.
    parameters: tool.inputSchema,
    strict: isStrictCompatibleSchema(tool.inputSchema),
  };
}

/**
 * The full tool list on every turn, in prompt-spec order, and the mode's restriction as
 * `tool_choice: {type: "allowed_tools"}`: the list is part of the cached prefix, the tool choice
 * is not, so switching modes keeps the cache. Allowed names are listed in tool-list order (not
 * in the order given) and unknown names are dropped with a warning; an empty allowed set is
 * `tool_choice: "none"` because `allowed_tools` needs at least one tool.
 */
export function prepareOpenAIResponsesTools({
  tools,
  allowedTools,
}: {
  tools: readonly ToolSpec[];
  allowedTools: readonly string[] | undefined;
}): PrepareOpenAIResponsesToolsResult {
  const warnings: Warning[] = [];
  if (tools.length === 0) {
    if (allowedTools !== undefined && allowedTools.length > 0) {
      warnings.push({
        type: "dropped",
        message: `allowed tools ${allowedTools.join(", ")} are not in the (empty) tool list`,
        path: "allowedTools",
      });
    }
    return { warnings };
  }
  const converted = tools.map(convertTool);
  if (allowedTools === undefined) return { tools: converted, warnings };

  const known = new Set(tools.map((tool) => tool.name));
  allowedTools.forEach((name, index) => {
    if (!known.has(name)) {
      warnings.push({
        type: "dropped",
        message: `allowed tool ${name} is not in the tool list`,
        path: `allowedTools[${index}]`,
      });
    }
  });
  const allowed = new Set(allowedTools);
  const allowedInOrder = tools.filter((tool) => allowed.has(tool.name));
  if (allowedInOrder.length === 0) return { tools: converted, toolChoice: "none", warnings };
  return {
    tools: converted,
    toolChoice: {
      type: "allowed_tools",
      mode: "auto",
      tools: allowedInOrder.map((tool) => ({ type: "function", name: tool.name })),
    },
    warnings,
  };
}
