import { readFileSync } from "node:fs";

/** One `curl` of a README's `sh` block, with what the README says it answers. */
export interface ReadmeRequest {
  /** The README line the command starts on (1-based), for failure messages. */
  readonly line: number;
  readonly method: "GET" | "POST";
  /** The URL as written (`http://127.0.0.1:8787/…`). */
  readonly url: string;
  /** The JSON of `-d '…'`, parsed. */
  readonly body?: unknown;
  /** `# event: <name>  data: <json>` lines after the command, in order. */
  readonly events: readonly { readonly event: string; readonly data: unknown }[];
  /** A `# {…}` line after a command that answers JSON. */
  readonly json?: unknown;
}

/** Stands for `…` in a README's example output: any value matches it. */
export const anyValue = Symbol("any value");

/** Parses README example output: `"…"` and a bare `…` match any value. */
function parseExample(text: string): unknown {
  const marked = text
    .replaceAll('"…"', '"\\u0000any"')
    .replace(/(?<=[:[,]\s*)…(?=\s*[,}\]])/g, '"\\u0000any"');
  return JSON.parse(marked, (_key, value: unknown) => (value === "\u0000any" ? anyValue : value));
}

/** Every `curl` in the `sh` blocks of a markdown file, in order. */
export function readmeRequests(path: string): ReadmeRequest[] {
  const lines = readFileSync(path, "utf8").split("\n");
  const requests: ReadmeRequest[] = [];
  let inShell = false;
  let current:
    | { line: number; command: string; events: ReadmeRequest["events"][number][]; json?: unknown }
    | undefined;
  const finish = () => {
    if (current === undefined) return;
    const url = /https?:\/\/[^\s']+/.exec(current.command)?.[0];
    if (url === undefined) throw new Error(`README line ${current.line}: a curl without a URL`);
    const data = /-d '([\s\S]*)'/.exec(current.command)?.[1];
    requests.push({
      line: current.line,
      method: data !== undefined || /-X POST/.test(current.command) ? "POST" : "GET",
      url,
      ...(data === undefined ? {} : { body: JSON.parse(data) as unknown }),
      events: current.events,
      ...(current.json === undefined ? {} : { json: current.json }),
    });
    current = undefined;
  };
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (line.startsWith("```")) {
      finish();
      inShell = !inShell && line.trim() === "```sh";
      continue;
    }
    if (!inShell) continue;
    if (line.startsWith("curl ")) {
      finish();
      let command = line;
      // A `-d '{…}'` body runs over the lines up to its closing quote.
      while (/-d '/.test(command) && !/'\s*$/.test(command.slice(command.indexOf("-d '") + 4))) {
        index += 1;
        command += `\n${lines[index]!}`;
      }
      current = { line: index + 1, command, events: [] };
      continue;
    }
    const event = /^# event: (\S+)\s+data: (.*)$/.exec(line);
    if (event !== null && current !== undefined) {
      current.events.push({ event: event[1]!, data: parseExample(event[2]!) });
      continue;
    }
    const json = /^# (\{.*\})\s*$/.exec(line);
    if (json !== null && current !== undefined) current.json = parseExample(json[1]!);
  }
  finish();
  return requests;
}

/** Whether `actual` matches a README example value (`anyValue` matches anything). */
export function matchesExample(expected: unknown, actual: unknown): boolean {
  if (expected === anyValue) return true;
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, index) => matchesExample(item, actual[index]))
    );
  }
  if (typeof expected === "object" && expected !== null) {
    if (typeof actual !== "object" || actual === null || Array.isArray(actual)) return false;
    const keys = Object.keys(expected);
    return (
      keys.length === Object.keys(actual).length &&
      keys.every((key) =>
        matchesExample(
          (expected as Record<string, unknown>)[key],
          (actual as Record<string, unknown>)[key],
        ),
      )
    );
  }
  return Object.is(expected, actual);
}
