import { PromptAssetError } from "./errors.js";

/** A validated prompt template; `render` substitutes every placeholder it declares. */
export interface PromptTemplate<Name extends string = string> {
  readonly file: string;
  /** Placeholder names in the order they appear. */
  readonly placeholders: readonly Name[];
  render(values: Readonly<Record<Name, string>>): string;
}

type Segment =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "placeholder"; readonly name: string; readonly standalone: boolean };

const placeholderPattern = /\{\{([A-Z][A-Z0-9_]*)\}\}/y;

function positionOf(source: string, index: number): { line: number; column: number } {
  const before = source.slice(0, index);
  const line = before.split("\n").length;
  return { line, column: index - before.lastIndexOf("\n") };
}

/**
 * Parses and validates a template. Placeholders are written `{{NAME}}`; any other `{` or `}` is
 * a stray brace, so a typo never reaches the model as literal text. Every required placeholder
 * must appear, no unknown one may, and none twice (a runtime template that repeated
 * `{{USER_QUERY}}` would show the model two queries). One trailing newline of the file (the
 * usual end of a text file) is not part of the template.
 */
export function parsePromptTemplate<Required extends string, Optional extends string = never>({
  file,
  source,
  required,
  optional = [],
}: {
  file: string;
  source: string;
  required: readonly Required[];
  optional?: readonly Optional[];
}): PromptTemplate<Required | Optional> {
  const text = source.endsWith("\n") ? source.slice(0, -1) : source;
  const known = new Set<string>([...required, ...optional]);
  const segments: Segment[] = [];
  const seen = new Set<string>();
  let textStart = 0;
  let index = 0;
  while (index < text.length) {
    const char = text[index];
    if (char !== "{" && char !== "}") {
      index += 1;
      continue;
    }
    placeholderPattern.lastIndex = index;
    const match = char === "{" ? placeholderPattern.exec(text) : null;
    if (match === null) {
      throw new PromptAssetError({
        file,
        problem: "stray-brace",
        message: `stray "${char}" (placeholders are written {{NAME}} with NAME in A-Z, 0-9 and _)`,
        ...positionOf(text, index),
      });
    }
    const name = match[1] ?? "";
    if (!known.has(name)) {
      throw new PromptAssetError({
        file,
        problem: "unknown-placeholder",
        message: `unknown placeholder {{${name}}}; this template takes ${[...known].map((n) => `{{${n}}}`).join(", ") || "no placeholders"}`,
        ...positionOf(text, index),
      });
    }
    if (seen.has(name)) {
      throw new PromptAssetError({
        file,
        problem: "duplicate-placeholder",
        message: `placeholder {{${name}}} appears more than once`,
        ...positionOf(text, index),
      });
    }
    seen.add(name);
    if (index > textStart) segments.push({ kind: "text", text: text.slice(textStart, index) });
    const end = index + match[0].length;
    // A placeholder alone on its line disappears together with its line when its value is empty,
    // so an empty section leaves no blank line behind.
    const startsLine = index === 0 || text[index - 1] === "\n";
    const endsLine = end === text.length || text[end] === "\n";
    segments.push({ kind: "placeholder", name, standalone: startsLine && endsLine });
    index = end;
    textStart = end;
  }
  if (textStart < text.length) segments.push({ kind: "text", text: text.slice(textStart) });
  const missing = required.filter((name) => !seen.has(name));
  if (missing.length > 0) {
    throw new PromptAssetError({
      file,
      problem: "missing-placeholder",
      message: `missing required placeholder${missing.length === 1 ? "" : "s"} ${missing.map((n) => `{{${n}}}`).join(", ")}`,
    });
  }
  const placeholders = segments.flatMap((segment) =>
    segment.kind === "placeholder" ? [segment.name as Required | Optional] : [],
  );
  return Object.freeze({
    file,
    placeholders: Object.freeze(placeholders),
    render: (values: Readonly<Record<Required | Optional, string>>) =>
      renderSegments({ file, segments, values }),
  });
}

function renderSegments({
  file,
  segments,
  values,
}: {
  file: string;
  segments: readonly Segment[];
  values: Readonly<Record<string, string>>;
}): string {
  let output = "";
  let dropLeadingNewline = false;
  for (const segment of segments) {
    if (segment.kind === "text") {
      output += dropLeadingNewline ? segment.text.slice(1) : segment.text;
      dropLeadingNewline = false;
      continue;
    }
    const value = Object.hasOwn(values, segment.name) ? values[segment.name] : undefined;
    if (typeof value !== "string") {
      throw new PromptAssetError({
        file,
        problem: "missing-value",
        message: `no value given for placeholder {{${segment.name}}}`,
      });
    }
    if (value === "" && segment.standalone) {
      // The newline that ends this line goes with it (a standalone placeholder is always
      // followed by a newline or the end of the template).
      dropLeadingNewline = true;
      continue;
    }
    output += value;
    dropLeadingNewline = false;
  }
  // A removed line at the very end leaves the newline that preceded it.
  if (dropLeadingNewline && output.endsWith("\n")) output = output.slice(0, -1);
  return output;
}
