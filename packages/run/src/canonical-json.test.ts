import { describe, expect, it } from "vitest";
import { canonicalJson, canonicalizeJsonValue, sha256Hex } from "./canonical-json.js";
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

describe("sha256Hex", () => {
  it("gives the SHA-256 of a text's UTF-8 bytes and of bytes, as lowercase hex", () => {
    // FIPS 180-2 test vector.
    const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    expect(sha256Hex("abc")).toBe(abc);
    expect(sha256Hex(new TextEncoder().encode("abc"))).toBe(abc);
    expect(sha256Hex("é")).toBe(sha256Hex(new Uint8Array([0xc3, 0xa9])));
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });
});
