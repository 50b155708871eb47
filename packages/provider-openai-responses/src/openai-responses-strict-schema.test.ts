import { describe, expect, it } from "vitest";
import { isStrictCompatibleSchema } from "./openai-responses-strict-schema.js";

describe("isStrictCompatibleSchema", () => {
  it("accepts closed objects with every property required", () => {
    expect(
      isStrictCompatibleSchema({
        type: "object",
        properties: {
          path: { type: "string", description: "p" },
          mode: { type: ["string", "null"], enum: ["r", "w", null] },
          ranges: {
            type: "array",
            items: {
              type: "object",
              properties: { start: { type: "integer", minimum: 0 } },
              required: ["start"],
              additionalProperties: false,
            },
          },
          target: { anyOf: [{ type: "string" }, { $ref: "#/$defs/loc" }] },
        },
        required: ["path", "mode", "ranges", "target"],
        additionalProperties: false,
        $defs: { loc: { type: "integer" } },
      }),
    ).toBe(true);
  });

  it.each([
    ["an open object", { type: "object", properties: {}, required: [] }],
    [
      "an optional property",
      {
        type: "object",
        properties: { a: { type: "string" } },
        required: [],
        additionalProperties: false,
      },
    ],
    [
      "an open nested object",
      {
        type: "object",
        properties: { a: { type: "object", properties: {} } },
        required: ["a"],
        additionalProperties: false,
      },
    ],
    [
      "an unsupported keyword",
      {
        type: "object",
        properties: { a: { type: "string", allOf: [] } },
        required: ["a"],
        additionalProperties: false,
      },
    ],
    [
      "an untyped node",
      { type: "object", properties: { a: {} }, required: ["a"], additionalProperties: false },
    ],
    ["a non-object root", { type: "string" }],
  ])("rejects %s", (_, schema) => {
    expect(isStrictCompatibleSchema(schema)).toBe(false);
  });

  it("rejects nesting deeper than the API allows", () => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let depth = 0; depth < 11; depth += 1) {
      schema = {
        type: "object",
        properties: { n: schema },
        required: ["n"],
        additionalProperties: false,
      };
    }
    expect(isStrictCompatibleSchema(schema as never)).toBe(false);
  });
});
