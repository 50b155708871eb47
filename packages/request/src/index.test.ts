import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@cursor/request entry point", () => {
  it("names the package it is published as", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(api.packageName).toBe(manifest.name);
  });

  it("exports the functions other packages code against", () => {
    for (const name of [
      "parseAgentRunRequest",
      "compileRequestContext",
      "compileUserTurnRuntime",
      "compileBackgroundCompletionRuntime",
      "compileInjectedContextRuntime",
      "renderSummaryText",
      "createCursorPromptSpec",
      "allowedToolsForMode",
    ] as const) {
      expect(api[name]).toBeTypeOf("function");
    }
    expect(api.summarizerInstructions).toBeTypeOf("string");
    expect(api.agentModes).toEqual(["agent", "ask", "plan", "debug"]);
    expect(api.agentActionTypes).toEqual([
      "user-message",
      "tool-results",
      "inject-context",
      "background-completion",
      "summarize",
    ]);
  });

  it("documents its limits", () => {
    expect(api.requestLimits).toMatchObject({
      maxBodyBytes: 32 * 1024 * 1024,
      maxConversationIdLength: 128,
      maxTextBytes: 1024 * 1024,
      maxFileContentBytes: 4 * 1024 * 1024,
      maxListItems: 1000,
      maxImageBase64Bytes: 20 * 1024 * 1024,
    });
    expect(Object.isFrozen(api.requestLimits)).toBe(true);
  });
});
