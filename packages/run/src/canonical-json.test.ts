import { describe, expect, it } from "vitest";
import { canonicalJson, canonicalizeJsonValue } from "./canonical-json.js";
import { canonicalMessageSchema } from "./canonical-message.js";
import { createAssistantMessage } from "./message-builders.js";
import { createPromptSpec } from "./prompt-spec.js";

// JSON.parse makes `__proto__` an own property; assigning it would set a prototype instead.
const schemaWithProto = JSON.parse(
  '{"type":"object","properties":{"__proto__":{"type":"string"},"b":{"type":"number"}},"required":["__proto__"]}',
) as Record<string, unknown>;

describe("JSON values with a key named __proto__", () => {
  it("canonicalizeJsonValue keeps it as an own property, in key order", () => {
    const copy = canonicalizeJsonValue(schemaWithProto);
    const properties = copy.properties as Record<string, unknown>;
    expect(Object.keys(properties)).toEqual(["__proto__", "b"]);
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(JSON.stringify(copy)).toBe(
      '{"properties":{"__proto__":{"type":"string"},"b":{"type":"number"}},"required":["__proto__"],"type":"object"}',
    );
  });

  it("a prompt spec keeps a tool argument named __proto__ (and what requires it)", () => {
    const spec = createPromptSpec({
      instructions: "Be helpful.",
      tools: [{ name: "q", description: "query", inputSchema: schemaWithProto }],
    });
    expect(canonicalJson(spec.tools[0]!.inputSchema)).toBe(canonicalJson(schemaWithProto));
    expect(Object.keys(spec.tools[0]!.inputSchema.properties as object)).toEqual([
      "__proto__",
      "b",
    ]);
  });

  it("a message's replay state keeps it too", () => {
    const replay = JSON.parse('{"p":{"__proto__":{"x":1},"y":2}}') as Record<string, never>;
    const message = createAssistantMessage({ runId: "r", step: 0, text: "t", replay });
    const parsed = canonicalMessageSchema.parse(message);
    expect(canonicalJson(parsed)).toBe(canonicalJson(message));
  });
});
