import { describe, expect, it } from "vitest";
import { parseAnthropicToolInput } from "./parse-anthropic-tool-input.js";

describe("parseAnthropicToolInput", () => {
  it("keeps the key order of the argument text", () => {
    const { input, warning } = parseAnthropicToolInput({
      argumentsText: '{"z":1,"a":{"y":true,"b":[1,"x"]}}',
      path: "p",
    });
    expect(warning).toBeUndefined();
    expect(JSON.stringify(input)).toBe('{"z":1,"a":{"y":true,"b":[1,"x"]}}');
  });

  it("falls back to {} with a warning on invalid JSON", () => {
    expect(parseAnthropicToolInput({ argumentsText: '{"a":', path: "messages[1]" })).toEqual({
      input: {},
      warning: {
        type: "other",
        message: "tool call arguments are not valid JSON; replayed as {}",
        path: "messages[1]",
      },
    });
    expect(parseAnthropicToolInput({ argumentsText: "", path: "p" }).input).toEqual({});
  });

  it("falls back to {} with a warning when the JSON is not an object", () => {
    for (const text of ["[1,2]", "3", "null", '"s"']) {
      const result = parseAnthropicToolInput({ argumentsText: text, path: "p" });
      expect(result.input).toEqual({});
      expect(result.warning?.message).toBe(
        "tool call arguments are not a JSON object; replayed as {}",
      );
    }
  });
});
