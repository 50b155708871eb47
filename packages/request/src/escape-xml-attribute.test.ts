import { describe, expect, it } from "vitest";
import { escapeXmlAttribute, renderAttributes } from "./escape-xml-attribute.js";

describe("escapeXmlAttribute", () => {
  it("escapes markup, quotes and line breaks", () => {
    expect(escapeXmlAttribute(`a&b<c>d"e'f\ng\rh\ti`)).toBe(
      "a&amp;b&lt;c&gt;d&quot;e'f&#10;g&#13;h&#9;i",
    );
  });

  it("escapes an already escaped value again (no double meaning)", () => {
    expect(escapeXmlAttribute("&amp;")).toBe("&amp;amp;");
  });

  it("leaves other text alone", () => {
    expect(escapeXmlAttribute("src/über/файл.ts")).toBe("src/über/файл.ts");
  });
});

describe("renderAttributes", () => {
  it("renders pairs in the given order and skips undefined ones", () => {
    expect(
      renderAttributes([
        ["path", 'a"b'],
        ["line", 3],
        ["focused", undefined],
        ["open", false],
      ]),
    ).toBe(' path="a&quot;b" line="3" open="false"');
  });
});
