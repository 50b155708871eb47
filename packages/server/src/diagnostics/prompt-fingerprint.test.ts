import { createHash } from "node:crypto";
import { deepFreeze } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { providerHistoryItems } from "../providers/provider-history-items.js";
import { extendsPrompt, promptFingerprint } from "./prompt-fingerprint.js";
import { cacheNamespaceFields } from "./provider-body.js";
import type { ProviderFormat } from "./provider-body.js";

// The chain as defined, hashed from scratch: what every remembered link must equal.
function referenceLinks(body: Record<string, unknown>, preambleLink: string): string[] {
  const hash = (previous: string, bytes: string) =>
    createHash("sha256").update(previous).update("\n").update(bytes).digest("hex");
  const links = [preambleLink];
  for (const item of providerHistoryItems(body)) {
    links.push(hash(links[links.length - 1]!, JSON.stringify(item) ?? "null"));
  }
  return links;
}

const tools = deepFreeze([
  { type: "function", name: "ls", description: "List.", parameters: { type: "object" } },
  { type: "function", name: "cat", description: undefined, parameters: { type: "object" } },
]);
const responsesBody = (input: unknown[]) => ({
  model: "gpt-5",
  instructions: "Be brief.",
  tools,
  input,
  prompt_cache_key: "k",
});
const anthropicBody = (messages: unknown[]) => ({
  model: "claude",
  max_tokens: 1024,
  system: [{ type: "text", text: "Be brief." }],
  messages,
});

describe("promptFingerprint", () => {
  const items = [
    { type: "message", role: "user", content: [{ type: "input_text", text: "Hi" }] },
    { type: "function_call", call_id: "c1", name: "ls", arguments: "{}" },
    { type: "function_call_output", call_id: "c1", output: "a b" },
  ];

  it("gives the same links for shared frozen items as for fresh copies, call after call", () => {
    const frozen = deepFreeze(structuredClone(items));
    const first = promptFingerprint({
      body: responsesBody(frozen.slice(0, 2)),
      format: "openai-responses",
    });
    const second = promptFingerprint({ body: responsesBody(frozen), format: "openai-responses" });
    const fresh = promptFingerprint({
      body: responsesBody(structuredClone(items)),
      format: "openai-responses",
    });
    expect(second).toEqual(fresh);
    // The preamble's remembered tool JSON is the tools' own JSON.
    const unfrozenTools = {
      ...responsesBody(structuredClone(items)),
      tools: structuredClone(tools),
    };
    expect(promptFingerprint({ body: unfrozenTools, format: "openai-responses" })).toEqual(fresh);
    expect(second.links.slice(0, 3)).toEqual(first.links);
    expect(extendsPrompt(second, first)).toBe(true);
    const body = responsesBody(items);
    const preambleLink = createHash("sha256")
      .update("\n")
      .update(
        JSON.stringify([
          cacheNamespaceFields(body, "openai-responses"),
          body.tools,
          null,
          body.instructions,
        ]),
      )
      .digest("hex");
    expect(fresh.links).toEqual(referenceLinks(body, preambleLink));
  });

  it("does not reuse a frozen item's link at another place in the chain", () => {
    const frozen = deepFreeze(structuredClone(items));
    promptFingerprint({ body: responsesBody(frozen), format: "openai-responses" });
    const moved = [frozen[1], frozen[0], frozen[2]];
    const format: ProviderFormat = "openai-responses";
    expect(promptFingerprint({ body: responsesBody(moved), format })).toEqual(
      promptFingerprint({ body: responsesBody(structuredClone(moved)), format }),
    );
    const otherInstructions = { ...responsesBody(frozen), instructions: "Be long." };
    expect(promptFingerprint({ body: otherInstructions, format }).links[3]).not.toBe(
      promptFingerprint({ body: responsesBody(frozen), format }).links[3],
    );
  });

  it("hashes Anthropic blocks without their markers, within their role, shared or marked", () => {
    const block = deepFreeze({ type: "text", text: "Read a.ts." });
    const marked = { ...block, cache_control: { type: "ephemeral" } };
    const asUser = anthropicBody([{ role: "user", content: [block] }]);
    const asMarked = anthropicBody([{ role: "user", content: [marked] }]);
    const asAssistant = anthropicBody([{ role: "assistant", content: [block] }]);
    const fp = (body: Record<string, unknown>) => promptFingerprint({ body, format: "anthropic" });
    expect(fp(asUser).digest).toBe(fp(asMarked).digest);
    expect(fp(asAssistant).digest).not.toBe(fp(asUser).digest);
    expect(fp(asUser)).toEqual(fp(structuredClone(asUser)));
  });

  it("hashes only what a conversation's later call appended, for Chat's fresh system message too", () => {
    let stringified = 0;
    // An item that counts how often its JSON is taken (what a link hashes).
    const counted = (text: string) =>
      Object.freeze({
        role: "user",
        content: text,
        toJSON() {
          stringified += 1;
          return { role: "user", content: text };
        },
      });
    const history = [counted("a"), counted("b")];
    const chatBody = (messages: unknown[]) => ({
      model: "gpt-5",
      messages: [{ role: "system", content: "Be brief." }, ...messages],
    });
    const first = promptFingerprint({ body: chatBody(history), format: "openai-chat" });
    expect(stringified).toBe(2);
    const next = promptFingerprint({
      body: chatBody([...history, counted("c")]),
      format: "openai-chat",
    });
    expect(stringified).toBe(3);
    expect(extendsPrompt(next, first)).toBe(true);
    expect(next.links.slice(0, first.links.length)).toEqual(first.links);
  });
});
