import { describe, expect, it } from "vitest";
import { PromptAssetError } from "./errors.js";
import { parsePromptTemplate } from "./prompt-template.js";

const file = "prompt/cursor/test.md";

function parseError(source: string, required: string[] = [], optional: string[] = []) {
  try {
    parsePromptTemplate({ file, source, required, optional });
  } catch (error) {
    if (PromptAssetError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected the template to be rejected");
}

describe("parsePromptTemplate", () => {
  it("substitutes each placeholder and drops the file's final newline", () => {
    const template = parsePromptTemplate({
      file,
      source: "Hello {{NAME}}, it is {{TIME}}.\n",
      required: ["NAME", "TIME"],
    });
    expect(template.placeholders).toEqual(["NAME", "TIME"]);
    expect(template.render({ NAME: "Ada", TIME: "noon" })).toBe("Hello Ada, it is noon.");
  });

  it("inserts values verbatim, even ones that look like placeholders", () => {
    const template = parsePromptTemplate({ file, source: "<q>{{Q}}</q>", required: ["Q"] });
    expect(template.render({ Q: "{{Q}} & }{" })).toBe("<q>{{Q}} & }{</q>");
  });

  it("removes the whole line of a standalone placeholder whose value is empty", () => {
    const template = parsePromptTemplate({
      file,
      source: "<a>\n{{ONE}}\n{{TWO}}\n{{THREE}}\n</a>\n",
      required: ["ONE", "TWO", "THREE"],
    });
    expect(template.render({ ONE: "", TWO: "", THREE: "" })).toBe("<a>\n</a>");
    expect(template.render({ ONE: "1", TWO: "", THREE: "3\n3" })).toBe("<a>\n1\n3\n3\n</a>");
    expect(template.render({ ONE: "", TWO: "2", THREE: "" })).toBe("<a>\n2\n</a>");
  });

  it("removes empty standalone placeholders on the first and the last line", () => {
    const template = parsePromptTemplate({
      file,
      source: "{{HEAD}}\nbody\n{{TAIL}}",
      required: ["HEAD", "TAIL"],
    });
    expect(template.render({ HEAD: "", TAIL: "" })).toBe("body");
    expect(template.render({ HEAD: "h", TAIL: "t" })).toBe("h\nbody\nt");
  });

  it("keeps the line of an inline placeholder whose value is empty", () => {
    const template = parsePromptTemplate({ file, source: "a\n<t>{{X}}</t>\nb", required: ["X"] });
    expect(template.render({ X: "" })).toBe("a\n<t></t>\nb");
  });

  it("accepts optional placeholders whether or not the template uses them", () => {
    const without = parsePromptTemplate({
      file,
      source: "{{A}}",
      required: ["A"],
      optional: ["B"],
    });
    expect(without.placeholders).toEqual(["A"]);
    expect(without.render({ A: "a", B: "unused" })).toBe("a");
  });

  it.each([
    ["a lone opening brace", "text { more", 1, 6, '"{"'],
    ["a lone closing brace", "line one\nline } two", 2, 6, '"}"'],
    ["a lower-case placeholder", "{{name}}", 1, 1, '"{"'],
    ["a placeholder with spaces", "{{ NAME }}", 1, 1, '"{"'],
    ["a triple brace", "x{{{NAME}}}", 1, 2, '"{"'],
    ["an unclosed placeholder", "{{NAME}", 1, 1, '"{"'],
    ["a JSON example", 'use {"a": 1}', 1, 5, '"{"'],
  ])("rejects %s as a stray brace with its position", (_name, source, line, column, brace) => {
    const error = parseError(source, [], ["NAME"]);
    expect(error.problem).toBe("stray-brace");
    expect(error.file).toBe(file);
    expect([error.line, error.column]).toEqual([line, column]);
    expect(error.message).toContain(`${file}:${line}:${column}: stray ${brace}`);
  });

  it("rejects an unknown placeholder, naming the file and the placeholders it takes", () => {
    const error = parseError("Hi {{NAME}}\n{{NAM}}", ["NAME"]);
    expect(error.problem).toBe("unknown-placeholder");
    expect([error.line, error.column]).toEqual([2, 1]);
    expect(error.message).toBe(
      `${file}:2:1: unknown placeholder {{NAM}}; this template takes {{NAME}}`,
    );
  });

  it("rejects a template without a required placeholder, naming the file", () => {
    const error = parseError("Hi {{NAME}}", ["NAME", "USER_QUERY", "TIMESTAMP"]);
    expect(error.problem).toBe("missing-placeholder");
    expect(error.line).toBeUndefined();
    expect(error.message).toBe(
      `${file}: missing required placeholders {{USER_QUERY}}, {{TIMESTAMP}}`,
    );
  });

  it("rejects a placeholder used twice", () => {
    const error = parseError("{{Q}}\n{{Q}}", ["Q"]);
    expect(error.problem).toBe("duplicate-placeholder");
    expect([error.line, error.column]).toEqual([2, 1]);
  });

  it("throws when rendered without a value for a placeholder", () => {
    const template = parsePromptTemplate({ file, source: "{{A}}{{B}}", required: ["A", "B"] });
    const render = template.render as (values: Record<string, string>) => string;
    expect(() => render({ A: "a" })).toThrow(`${file}: no value given for placeholder {{B}}`);
  });

  it("marks its errors so they are recognised across package copies", () => {
    const error = parseError("}");
    expect(error.name).toBe("PromptAssetError");
    expect(PromptAssetError.isInstance(error)).toBe(true);
    expect(PromptAssetError.isInstance(new Error("x"))).toBe(false);
    expect(PromptAssetError.isInstance({ [Symbol.for("cursor.error.prompt-asset")]: true })).toBe(
      true,
    );
  });
});
