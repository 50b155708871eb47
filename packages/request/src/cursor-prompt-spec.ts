import type { PromptSpec, ToolSpec } from "@cursor/run";
import { createPromptSpec } from "@cursor/run";
import { z } from "zod";
import type { AgentMode } from "./agent-run-request-schema.js";
import { agentModeSchema } from "./agent-run-request-schema.js";
import { cursorPrompts } from "./cursor-prompts.js";
import { ToolNameCollisionError } from "./errors.js";
import { exposeMcpTools } from "./exposed-mcp-tools.js";
import type { McpServerInput } from "./request-context-schema.js";
import { mcpServerInputSchema } from "./request-context-schema.js";
import { boundedList, nameSchema } from "./schema-primitives.js";
import { parseOrThrow } from "./validation-issues.js";

/** Said in the instructions when the caller does not name the model. */
export const defaultModelDisplayName = "a large language model";

/** Modes that may call MCP tools: their side effects are unknown, so read-only modes may not. */
export const modesWithMcpTools: readonly AgentMode[] = ["agent", "debug"];

// The fixed tools' modes, from the prompt files (built once: every model call asks).
const fixedModes: ReadonlyMap<string, readonly AgentMode[]> = new Map(
  cursorPrompts.tools.map((tool) => [tool.name, tool.modes]),
);

const cursorPromptSpecInputSchema = z.strictObject({
  modelDisplayName: nameSchema.optional(),
  mcpServers: boundedList(mcpServerInputSchema).optional(),
});

export interface CursorPromptSpecInput {
  /** Substituted into the instructions ("powered by <name>"). */
  readonly modelDisplayName?: string | undefined;
  /** `requestContext.mcp.servers`: their tools follow the fixed catalog, sorted by name. */
  readonly mcpServers?: readonly McpServerInput[] | undefined;
}

/**
 * The prompt spec every mode shares: `prompt/cursor/instructions.md` and the fixed tool catalog
 * of `prompt/cursor/tools.md`, then the MCP tools sorted by their exposed name. A mode switch
 * therefore never changes instructions or tools (the prefix cache survives it); what a mode may
 * call is `allowedToolsForMode`. Throws `ToolNameCollisionError` when two tools share a name.
 */
export function createCursorPromptSpec(input: CursorPromptSpecInput = {}): PromptSpec {
  const { modelDisplayName, mcpServers } = parseOrThrow({
    schema: cursorPromptSpecInputSchema,
    input,
    what: "prompt spec input",
  });
  const fixedTools: ToolSpec[] = cursorPrompts.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
  }));
  const fixedNames = new Set(fixedTools.map((tool) => tool.name));
  const mcpTools: ToolSpec[] = exposeMcpTools(mcpServers ?? []).map((tool) => {
    if (fixedNames.has(tool.name)) {
      throw new ToolNameCollisionError({
        toolName: tool.name,
        sources: [
          "the fixed tool catalog",
          `MCP server ${JSON.stringify(tool.server)} tool ${JSON.stringify(tool.mcpName)}`,
        ],
      });
    }
    return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
  });
  return createPromptSpec({
    instructions: cursorPrompts.instructions.render({
      MODEL_DISPLAY_NAME: modelDisplayName ?? defaultModelDisplayName,
    }),
    tools: [...fixedTools, ...mcpTools],
  });
}

/**
 * The tools a mode may call, in the spec's order: fixed tools by their `modes:` line in
 * tools.md, any other tool (MCP) only in `modesWithMcpTools`. Providers map it to their native
 * allowed-tool setting, so the tool list itself stays the same in every mode.
 */
export function allowedToolsForMode(mode: AgentMode, promptSpec: PromptSpec): string[] {
  const parsedMode = parseOrThrow({ schema: agentModeSchema, input: mode, what: "mode" });
  // A prompt spec `createPromptSpec` made is frozen and shared by the conversations with its MCP
  // servers, and every model call asks: its lists are made once per mode. (Any other spec, whose
  // tools could still change, is read every time.)
  const frozen = Object.isFrozen(promptSpec) && Object.isFrozen(promptSpec.tools);
  let byMode = frozen ? allowedToolsBySpec.get(promptSpec) : undefined;
  if (frozen && byMode === undefined) {
    byMode = new Map();
    allowedToolsBySpec.set(promptSpec, byMode);
  }
  let names = byMode?.get(parsedMode);
  if (names === undefined) {
    names = Object.freeze(
      promptSpec.tools
        .filter((tool) => {
          const modes = fixedModes.get(tool.name);
          return modes === undefined
            ? modesWithMcpTools.includes(parsedMode)
            : modes.includes(parsedMode);
        })
        .map((tool) => tool.name),
    );
    byMode?.set(parsedMode, names);
  }
  return [...names];
}

const allowedToolsBySpec = new WeakMap<PromptSpec, Map<AgentMode, readonly string[]>>();
