import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { diffRequestBodies } from "./diff-request-bodies.js";
import { formatBodyDiff } from "./format-body-diff.js";
import { detectProviderFormat, providerFormatLabels } from "./provider-body.js";
import { requestEntries, resolveIndex } from "./request-entries.js";
import type { RequestEntry } from "./request-entries.js";

export interface CommandIo {
  readonly out: { write(text: string): unknown };
  readonly err: { write(text: string): unknown };
  /** Reads a file, or standard input for `-`. */
  readonly readText?: (path: string) => Promise<string>;
}

export const diffUsage = `cursor-gateway diff A.json [B.json] [--index N] [--json]

Compares two provider request bodies (OpenAI Responses, Chat Completions or Anthropic Messages)
as the provider's prefix cache does: shared prefix in segments, history items and tokens (o200k),
the first diverging path, a diff of the diverging item and the likely cause.
  A.json B.json   two bodies; a file holding the gateway's provider-requests answer stands for
                  one of its entries (--index, default the last)
  A.json          a provider-requests answer alone: its entry --index against the one before
                  (default: the last two)
  -               read standard input
  --index N       entry of a provider-requests answer, 0 = oldest, negative from the end
  --json          print the comparison as JSON`;

async function defaultReadText(path: string): Promise<string> {
  if (path !== "-") return readFileSync(path, "utf8");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

class UsageError extends Error {}

/** `cursor-gateway diff`: returns the exit code (0 compared, 2 usage or input error). */
export async function runDiffCommand({
  argv,
  io,
}: {
  argv: readonly string[];
  io: CommandIo;
}): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      allowNegative: false,
      options: {
        index: { type: "string" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
    });
    if (values.help) {
      io.out.write(`${diffUsage}\n`);
      return 0;
    }
    if (positionals.length < 1 || positionals.length > 2) {
      throw new UsageError("give one provider-requests file or two request bodies");
    }
    const index = values.index === undefined ? -1 : Number(values.index);
    if (!Number.isInteger(index))
      throw new UsageError(`--index must be an integer, got ${values.index}`);
    const read = io.readText ?? defaultReadText;
    const documents = await Promise.all(
      positionals.map(async (path) => {
        try {
          return { path, entries: requestEntries(JSON.parse(await read(path)) as unknown) };
        } catch (error) {
          throw new UsageError(
            `${path}: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }),
    );
    const [first, second] = documents;
    let pair: { previous: Named; current: Named };
    if (second === undefined) {
      const at = resolveIndex(index, first!.entries.length);
      if (first!.entries.length < 2 || at === undefined || at === 0) {
        throw new UsageError(
          `${first!.path} holds ${first!.entries.length} request(s): need an entry and one before it (--index ${index})`,
        );
      }
      pair = {
        previous: { name: `${first!.path}#${at - 1}`, entry: first!.entries[at - 1]! },
        current: { name: `${first!.path}#${at}`, entry: first!.entries[at]! },
      };
    } else {
      pair = { previous: pick(first!, index), current: pick(second, index) };
    }
    const format = detectProviderFormat(pair.current.entry.body, pair.current.entry.provider);
    const previousFormat = detectProviderFormat(
      pair.previous.entry.body,
      pair.previous.entry.provider,
    );
    if (format === undefined || previousFormat === undefined) {
      throw new UsageError("not a provider request body (no input, messages or instructions)");
    }
    if (format !== previousFormat) {
      throw new UsageError(
        `${pair.previous.name} is a ${providerFormatLabels[previousFormat]} body, ${pair.current.name} a ${providerFormatLabels[format]} one: different providers share no cache`,
      );
    }
    const diff = diffRequestBodies({
      previous: pair.previous.entry.body,
      current: pair.current.entry.body,
      format,
    });
    io.out.write(
      values.json
        ? `${JSON.stringify(diff, null, 2)}\n`
        : formatBodyDiff({
            diff,
            previousName: pair.previous.name,
            currentName: pair.current.name,
          }),
    );
    return 0;
  } catch (error) {
    if (
      error instanceof UsageError ||
      (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")
    ) {
      io.err.write(`cursor-gateway diff: ${(error as Error).message}\n\n${diffUsage}\n`);
      return 2;
    }
    if (error instanceof TypeError) {
      io.err.write(`cursor-gateway diff: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

interface Named {
  readonly name: string;
  readonly entry: RequestEntry;
}

function pick(document: { path: string; entries: RequestEntry[] }, index: number): Named {
  if (document.entries.length === 1) return { name: document.path, entry: document.entries[0]! };
  const at = resolveIndex(index, document.entries.length);
  if (at === undefined) {
    throw new UsageError(
      `${document.path} has no entry ${index} (${document.entries.length} requests)`,
    );
  }
  return { name: `${document.path}#${at}`, entry: document.entries[at]! };
}
