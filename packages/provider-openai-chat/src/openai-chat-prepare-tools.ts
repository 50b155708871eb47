import type { ToolSpec, Warning } from "@cursor/run";
import type { OpenAIChatFunctionTool, OpenAIChatToolChoice } from "./openai-chat-api.js";

export interface PrepareOpenAIChatToolsResult {
  /** Absent when there are no tools: the API rejects an empty `tools` array. */
  readonly tools?: OpenAIChatFunctionTool[];
  readonly toolChoice?: OpenAIChatToolChoice;
  readonly warnings: Warning[];
}

// A prompt spec's tools are frozen and the same objects on every turn: each converts once.
const convertedTools = new WeakMap<ToolSpec, OpenAIChatFunctionTool>();

function convertTool(tool: ToolSpec): OpenAIChatFunctionTool {
  const cached = convertedTools.get(tool);
  if (cached !== undefined) return cached;
  const fn = { name: tool.name, description: tool.description, parameters: tool.inputSchema };
  // Only a frozen tool (its schema frozen with it) is known never to change under its wire form.
  if (!Object.isFrozen(tool)) return { type: "function", function: fn };
  const converted: OpenAIChatFunctionTool = Object.freeze({
    type: "function",
    function: Object.freeze(fn),
  });
  convertedTools.set(tool, converted);
  return converted;
}

/**
 * The full tool catalog on every turn (it is part of the cached prefix), in catalog order with
 * schemas as given (already canonical). A mode's restriction goes into `tool_choice` as
 * `allowed_tools` listing the permitted tools in catalog order, so the caller's ordering of
 * `allowedTools` cannot change the bytes; an empty permitted set becomes `tool_choice: "none"`.
 * Without `allowedTools`, `tool_choice` is left out (the API default, `auto`).
 */
export function prepareOpenAIChatTools({
  tools,
  allowedTools,
}: {
  tools: readonly ToolSpec[];
  allowedTools?: readonly string[] | undefined;
}): PrepareOpenAIChatToolsResult {
  const warnings: Warning[] = [];
  const names = new Set(tools.map((tool) => tool.name));
  if (allowedTools !== undefined) {
    allowedTools.forEach((name, index) => {
      if (!names.has(name)) {
        warnings.push({
          type: "dropped",
          message: `allowed tool ${name} is not in the tool catalog`,
          path: `allowedTools[${index}]`,
        });
      }
    });
  }
  if (tools.length === 0) return { warnings };
  const chatTools = tools.map(convertTool);
  if (allowedTools === undefined) return { tools: chatTools, warnings };
  const allowed = new Set(allowedTools);
  const permitted = tools.filter((tool) => allowed.has(tool.name));
  const toolChoice: OpenAIChatToolChoice =
    permitted.length === 0
      ? "none"
      : {
          type: "allowed_tools",
          allowed_tools: {
            mode: "auto",
            tools: permitted.map((tool) => ({ type: "function", function: { name: tool.name } })),
          },
        };
  return { tools: chatTools, toolChoice, warnings };
}
