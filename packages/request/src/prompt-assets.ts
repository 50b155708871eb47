// The prompt files, imported as text: tsup inlines them into dist (loader ".md": "text") and the
// vitest config loads them the same way, so tests and the published package render identically.
import agentRuntime from "../../../prompt/cursor/agent/runtime.md";
import askRuntime from "../../../prompt/cursor/ask/runtime.md";
import backgroundCompletion from "../../../prompt/cursor/background-completion.md";
import debugRuntime from "../../../prompt/cursor/debug/runtime.md";
import injectedContext from "../../../prompt/cursor/injected-context.md";
import instructions from "../../../prompt/cursor/instructions.md";
import planRuntime from "../../../prompt/cursor/plan/runtime.md";
import requestContext from "../../../prompt/cursor/request-context.md";
import environmentSection from "../../../prompt/cursor/request-context/environment.md";
import gitSection from "../../../prompt/cursor/request-context/git.md";
import mcpSection from "../../../prompt/cursor/request-context/mcp.md";
import rulesSection from "../../../prompt/cursor/request-context/rules.md";
import skillsSection from "../../../prompt/cursor/request-context/skills.md";
import subagentsSection from "../../../prompt/cursor/request-context/subagents.md";
import summarizer from "../../../prompt/cursor/summarizer.md";
import summary from "../../../prompt/cursor/summary.md";
import tools from "../../../prompt/cursor/tools.md";

/** A prompt file: its path relative to the repository root (used in errors) and its text. */
export interface PromptSource {
  readonly file: string;
  readonly source: string;
}

function promptSource(relativePath: string, source: string): PromptSource {
  return Object.freeze({ file: `prompt/cursor/${relativePath}`, source });
}

/** Every prompt asset of the package, by role. */
export const cursorPromptSources = Object.freeze({
  instructions: promptSource("instructions.md", instructions),
  tools: promptSource("tools.md", tools),
  runtime: Object.freeze({
    agent: promptSource("agent/runtime.md", agentRuntime),
    ask: promptSource("ask/runtime.md", askRuntime),
    plan: promptSource("plan/runtime.md", planRuntime),
    debug: promptSource("debug/runtime.md", debugRuntime),
  }),
  requestContext: promptSource("request-context.md", requestContext),
  requestContextSections: Object.freeze({
    rules: promptSource("request-context/rules.md", rulesSection),
    skills: promptSource("request-context/skills.md", skillsSection),
    subagents: promptSource("request-context/subagents.md", subagentsSection),
    environment: promptSource("request-context/environment.md", environmentSection),
    git: promptSource("request-context/git.md", gitSection),
    mcp: promptSource("request-context/mcp.md", mcpSection),
  }),
  backgroundCompletion: promptSource("background-completion.md", backgroundCompletion),
  injectedContext: promptSource("injected-context.md", injectedContext),
  summary: promptSource("summary.md", summary),
  summarizer: promptSource("summarizer.md", summarizer),
});

export type CursorPromptSources = typeof cursorPromptSources;
