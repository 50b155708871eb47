/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), for tests: every
 * line must be a comment, a HELP / TYPE line or a sample; label values are unescaped (`\\`,
 * `\"`, `\n`). Anything else throws, so a malformed exposition fails the test that reads it.
 */
interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface MetricFamily {
  readonly name: string;
  help?: string;
  type?: string;
  readonly samples: Sample[];
}

const namePattern = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const labelNamePattern = /^[a-zA-Z_][a-zA-Z0-9_]*/;

// Values are Go floats (strconv.ParseFloat): NaN and Inf in any case.
function parseValue(text: string, line: string): number {
  const lower = text.toLowerCase();
  if (lower === "+inf" || lower === "inf") return Number.POSITIVE_INFINITY;
  if (lower === "-inf") return Number.NEGATIVE_INFINITY;
  if (lower === "nan") return Number.NaN;
  const value = Number(text);
  if (text.trim() === "" || Number.isNaN(value)) throw new Error(`bad sample value in: ${line}`);
  return value;
}

function parseLabels(text: string, line: string): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let rest = text.slice(1); // after "{"
  for (;;) {
    if (rest.startsWith("}")) return { labels, rest: rest.slice(1) };
    const name = labelNamePattern.exec(rest)?.[0];
    if (name === undefined || rest[name.length] !== "=" || rest[name.length + 1] !== '"') {
      throw new Error(`bad label in: ${line}`);
    }
    rest = rest.slice(name.length + 2);
    let value = "";
    for (;;) {
      const char = rest[0];
      if (char === undefined) throw new Error(`unterminated label value in: ${line}`);
      rest = rest.slice(1);
      if (char === '"') break;
      if (char === "\n") throw new Error(`raw newline in a label value: ${line}`);
      if (char === "\\") {
        const escaped = rest[0];
        rest = rest.slice(1);
        if (escaped === "\\") value += "\\";
        else if (escaped === '"') value += '"';
        else if (escaped === "n") value += "\n";
        else throw new Error(`bad escape \\${escaped} in: ${line}`);
      } else {
        value += char;
      }
    }
    if (name in labels) throw new Error(`label ${name} twice in: ${line}`);
    labels[name] = value;
    if (rest.startsWith(",")) rest = rest.slice(1);
    else if (!rest.startsWith("}")) throw new Error(`expected , or } in: ${line}`);
  }
}

/** The families of an exposition, keyed by name (a histogram's `_bucket` samples under its name). */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  if (!text.endsWith("\n")) throw new Error("the exposition must end with a newline");
  const families = new Map<string, MetricFamily>();
  const family = (name: string) => {
    let found = families.get(name);
    if (found === undefined) {
      found = { name, samples: [] };
      families.set(name, found);
    }
    return found;
  };
  for (const line of text.slice(0, -1).split("\n")) {
    if (line === "") continue;
    if (line.startsWith("#")) {
      const match = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) ?(.*)$/.exec(line);
      if (match === null) continue; // a plain comment
      const [, keyword, name, rest] = match as unknown as [string, string, string, string];
      if (keyword === "HELP") family(name).help = rest.replace(/\\n/g, "\n").replace(/\\\\/g, "\\");
      else {
        if (!["counter", "gauge", "histogram", "summary", "untyped"].includes(rest)) {
          throw new Error(`bad type in: ${line}`);
        }
        family(name).type = rest;
      }
      continue;
    }
    const name = namePattern.exec(line)?.[0];
    if (name === undefined) throw new Error(`not a sample: ${line}`);
    let rest = line.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith("{")) ({ labels, rest } = parseLabels(rest, line));
    if (!rest.startsWith(" ")) throw new Error(`expected a space before the value: ${line}`);
    const [valueText, timestamp, extra] = rest.trim().split(" ");
    if (extra !== undefined || (timestamp !== undefined && !/^-?\d+$/.test(timestamp))) {
      throw new Error(`trailing text in: ${line}`);
    }
    const base = name.replace(/_(bucket|sum|count)$/, "");
    const owner = families.has(name) ? name : families.has(base) ? base : name;
    family(owner).samples.push({ name, labels, value: parseValue(valueText!, line) });
  }
  return families;
}

/** The value of the one sample of `name` whose labels include `labels`. */
export function sampleValue(
  families: Map<string, MetricFamily>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const base = name.replace(/_(bucket|sum|count)$/, "");
  const owners = new Set([families.get(name), families.get(base)]);
  const samples = [...owners].flatMap((owner) => owner?.samples ?? []);
  const matching = samples.filter(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (matching.length > 1) throw new Error(`${matching.length} samples of ${name} match`);
  return matching[0]?.value;
}
