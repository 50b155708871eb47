import { describe, expect, it } from "vitest";
import { agentModes } from "./agent-run-request-schema.js";
import { cursorPrompts, loadCursorPrompts, runtimePlaceholders } from "./cursor-prompts.js";
import { PromptAssetError } from "./errors.js";
import type { CursorPromptSources } from "./prompt-assets.js";
import { cursorPromptSources } from "./prompt-assets.js";

function withRuntime(
  mode: "agent" | "ask" | "plan" | "debug",
  source: string,
): CursorPromptSources {
  const runtime = {
    ...cursorPromptSources.runtime,
    [mode]: { ...cursorPromptSources.runtime[mode], source },
  };
  return { ...cursorPromptSources, runtime };
}

function loadError(sources: CursorPromptSources): PromptAssetError {
  try {
    loadCursorPrompts(sources);
  } catch (error) {
    if (PromptAssetError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected the prompts to be rejected");
}

describe("the package's prompt assets", () => {
  it("are valid and name their files relative to the repository root", () => {
    expect(loadCursorPrompts(cursorPromptSources)).toBeDefined();
    expect(cursorPrompts.runtime.plan.file).toBe("prompt/cursor/plan/runtime.md");
    expect(cursorPrompts.summarizer.file).toBe("prompt/cursor/summarizer.md");
    expect(cursorPrompts.requestContextSections.mcp.file).toBe(
      "prompt/cursor/request-context/mcp.md",
    );
  });

  it.each(agentModes)("give the %s runtime every turn-level placeholder once", (mode) => {
    const placeholders = [...cursorPrompts.runtime[mode].placeholders].sort();
    expect(placeholders).toEqual([...runtimePlaceholders, "ALLOWED_TOOLS"].sort());
  });

  it("keep every mode's runtime template different (each carries its own reminder)", () => {
    const sources = agentModes.map((mode) => cursorPromptSources.runtime[mode].source);
    expect(new Set(sources).size).toBe(agentModes.length);
    for (const mode of agentModes) {
      expect(cursorPromptSources.runtime[mode].source).toContain(`<mode name="${mode}">`);
    }
  });
});

describe("loadCursorPrompts with a broken file", () => {
  const plan = cursorPromptSources.runtime.plan.source;

  it("names the runtime template with an unknown placeholder", () => {
    const error = loadError(withRuntime("plan", plan.replace("{{TIMESTAMP}}", "{{TIME}}")));
    expect(error.problem).toBe("unknown-placeholder");
    expect(error.file).toBe("prompt/cursor/plan/runtime.md");
    expect(error.message).toMatch(
      /^prompt\/cursor\/plan\/runtime\.md:\d+:\d+: unknown placeholder \{\{TIME\}\}/,
    );
  });

  it("names the runtime template that lacks the user query", () => {
    const error = loadError(withRuntime("debug", plan.replace("{{USER_QUERY}}", "")));
    expect(error.problem).toBe("missing-placeholder");
    expect(error.message).toBe(
      "prompt/cursor/debug/runtime.md: missing required placeholder {{USER_QUERY}}",
    );
  });

  it("names the runtime template that shows the user query twice", () => {
    const error = loadError(withRuntime("ask", `${plan}\n{{USER_QUERY}}`));
    expect(error.problem).toBe("duplicate-placeholder");
    expect(error.file).toBe("prompt/cursor/ask/runtime.md");
  });

  it("names the summary text with a stray brace", () => {
    const error = loadError({
      ...cursorPromptSources,
      summary: { ...cursorPromptSources.summary, source: "Summary: {SUMMARY}}\n{{SUMMARY}}" },
    });
    expect(error.problem).toBe("stray-brace");
    expect(error.message).toBe(
      'prompt/cursor/summary.md:1:10: stray "{" (placeholders are written {{NAME}} with NAME in A-Z, 0-9 and _)',
    );
  });

  it("names the instructions without the model's display name", () => {
    const error = loadError({
      ...cursorPromptSources,
      instructions: { ...cursorPromptSources.instructions, source: "You are a coding agent." },
    });
    expect(error.file).toBe("prompt/cursor/instructions.md");
    expect(error.problem).toBe("missing-placeholder");
  });

  it("names a broken tool catalog", () => {
    const error = loadError({
      ...cursorPromptSources,
      tools: { ...cursorPromptSources.tools, source: "# Tools\n" },
    });
    expect(error.file).toBe("prompt/cursor/tools.md");
    expect(error.problem).toBe("invalid-tool-catalog");
  });
});

describe("tool names in the prompt texts", () => {
  it("refer only to tools of the catalog", () => {
    const catalog = new Set(cursorPrompts.tools.map((tool) => tool.name));
    const texts = [
      cursorPromptSources.instructions,
      ...Object.values(cursorPromptSources.runtime),
      ...Object.values(cursorPromptSources.requestContextSections),
      cursorPromptSources.backgroundCompletion,
      cursorPromptSources.injectedContext,
      cursorPromptSources.summary,
      cursorPromptSources.summarizer,
    ];
    // Outside markup (<runtime_context>, <current_time>), snake_case words are tool names; the
    // one exception is the mcp_name attribute the MCP section explains.
    const markupWords = new Set(["mcp_name"]);
    const mentioned = texts.flatMap(
      ({ source }) => source.replace(/<[^>]*>/g, "").match(/\b[a-z]+(?:_[a-z]+)+\b/g) ?? [],
    );
    expect(mentioned.length).toBeGreaterThan(10);
    for (const word of mentioned) {
      if (!markupWords.has(word)) expect(catalog).toContain(word);
    }
  });
});
