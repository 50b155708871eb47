import type { AgentMode } from "./agent-run-request-schema.js";
import type { CursorPromptSources } from "./prompt-assets.js";
import { cursorPromptSources } from "./prompt-assets.js";
import type { PromptTemplate } from "./prompt-template.js";
import { parsePromptTemplate } from "./prompt-template.js";
import type { ToolCatalogEntry } from "./tool-catalog.js";
import { parseToolCatalog } from "./tool-catalog.js";

/** Every runtime template must place all turn-level data, so none is silently dropped. */
export const runtimePlaceholders = [
  "TIMESTAMP",
  "OPEN_FILES",
  "RECENT_FILES",
  "SELECTED_CONTEXT",
  "ACTION_CONTEXT",
  "USER_QUERY",
] as const;
export type RuntimePlaceholder = (typeof runtimePlaceholders)[number] | "ALLOWED_TOOLS";

export interface CursorPrompts {
  readonly instructions: PromptTemplate<"MODEL_DISPLAY_NAME">;
  readonly tools: readonly ToolCatalogEntry[];
  readonly runtime: Readonly<Record<AgentMode, PromptTemplate<RuntimePlaceholder>>>;
  readonly requestContext: PromptTemplate<
    "RULES" | "SKILLS" | "SUBAGENTS" | "ENVIRONMENT" | "GIT" | "MCP"
  >;
  readonly requestContextSections: {
    readonly rules: PromptTemplate<"RULES">;
    readonly skills: PromptTemplate<"SKILLS">;
    readonly subagents: PromptTemplate<"SUBAGENTS">;
    readonly environment: PromptTemplate<"ENVIRONMENT">;
    readonly git: PromptTemplate<"REPOSITORIES">;
    readonly mcp: PromptTemplate<"SERVERS">;
  };
  readonly backgroundCompletion: PromptTemplate<"TASK_ATTRIBUTES" | "TITLE" | "DETAIL">;
  readonly injectedContext: PromptTemplate<"TEXT">;
  readonly summary: PromptTemplate<"SUMMARY">;
  readonly summarizer: PromptTemplate<never>;
}

function runtimeTemplate(source: CursorPromptSources["runtime"][AgentMode]) {
  return parsePromptTemplate({
    ...source,
    required: runtimePlaceholders,
    optional: ["ALLOWED_TOOLS"],
  });
}

/**
 * Validates every prompt asset and returns the parsed templates and tool catalog. Throws a
 * `PromptAssetError` naming the first malformed file.
 */
export function loadCursorPrompts(sources: CursorPromptSources): CursorPrompts {
  const sections = sources.requestContextSections;
  return Object.freeze({
    instructions: parsePromptTemplate({
      ...sources.instructions,
      required: ["MODEL_DISPLAY_NAME"],
    }),
    tools: parseToolCatalog(sources.tools),
    runtime: Object.freeze({
      agent: runtimeTemplate(sources.runtime.agent),
      ask: runtimeTemplate(sources.runtime.ask),
      plan: runtimeTemplate(sources.runtime.plan),
      debug: runtimeTemplate(sources.runtime.debug),
    }),
    requestContext: parsePromptTemplate({
      ...sources.requestContext,
      required: ["RULES", "SKILLS", "SUBAGENTS", "ENVIRONMENT", "GIT", "MCP"],
    }),
    requestContextSections: Object.freeze({
      rules: parsePromptTemplate({ ...sections.rules, required: ["RULES"] }),
      skills: parsePromptTemplate({ ...sections.skills, required: ["SKILLS"] }),
      subagents: parsePromptTemplate({ ...sections.subagents, required: ["SUBAGENTS"] }),
      environment: parsePromptTemplate({ ...sections.environment, required: ["ENVIRONMENT"] }),
      git: parsePromptTemplate({ ...sections.git, required: ["REPOSITORIES"] }),
      mcp: parsePromptTemplate({ ...sections.mcp, required: ["SERVERS"] }),
    }),
    backgroundCompletion: parsePromptTemplate({
      ...sources.backgroundCompletion,
      required: ["TASK_ATTRIBUTES", "TITLE", "DETAIL"],
    }),
    injectedContext: parsePromptTemplate({ ...sources.injectedContext, required: ["TEXT"] }),
    summary: parsePromptTemplate({ ...sources.summary, required: ["SUMMARY"] }),
    summarizer: parsePromptTemplate({ ...sources.summarizer, required: [] }),
  });
}

/** The package's own prompts, validated once when the package is loaded. */
export const cursorPrompts: CursorPrompts = loadCursorPrompts(cursorPromptSources);
