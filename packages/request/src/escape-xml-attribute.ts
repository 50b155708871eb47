const replacements: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "\n": "&#10;",
  "\r": "&#13;",
  "\t": "&#9;",
};

/**
 * Escapes a value for a double-quoted attribute of the XML-ish markup in prompts. Every attribute
 * goes through here, so equal values always render to equal bytes and a path with a quote or a
 * newline cannot end its element early. Element bodies stay verbatim: they hold code and text
 * the model should read as written.
 */
export function escapeXmlAttribute(value: string): string {
  return value.replace(/[&<>"\n\r\t]/g, (character) => replacements[character] ?? character);
}

/** ` name="value"` pairs in the given order, skipping undefined values. */
export function renderAttributes(
  attributes: readonly (readonly [name: string, value: string | number | boolean | undefined])[],
): string {
  return attributes
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => ` ${name}="${escapeXmlAttribute(String(value))}"`)
    .join("");
}
