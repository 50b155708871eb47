import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CursorError } from "@cursor/run";
import {
  applyEdits,
  findNodeAtLocation,
  modify,
  parse as parseJsonc,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";
import type { FormattingOptions, Node as JsonNode, ParseError } from "jsonc-parser";
import { z } from "zod";

/**
 * Cursor's user settings (a VS Code settings.json: JSONC, so comments and trailing commas are
 * part of the file). The proxy needs three keys (cursor-wire-facts.md §8.5); they are edited in
 * place with jsonc-parser, the library VS Code itself edits this file with, so everything else in
 * the file stays byte for byte.
 */

export type SettingValue = string | boolean;

/** The IDE settings `cursor-gateway proxy` needs. */
export function proxySettings(proxyURL: string): Record<string, SettingValue> {
  return {
    "http.proxy": proxyURL,
    "http.proxySupport": "on",
    // Keeps the agent on RunSSE + BidiAppend (HTTP/1.1), the transport the gateway serves.
    "cursor.general.disableHttp2": true,
  };
}

/** Where Cursor keeps the user's settings.json on this platform. */
export function defaultSettingsPath({
  platform = process.platform,
  env = process.env,
  home = homedir(),
}: {
  platform?: NodeJS.Platform;
  env?: Record<string, string | undefined>;
  home?: string;
} = {}): string {
  switch (platform) {
    case "darwin":
      return join(home, "Library", "Application Support", "Cursor", "User", "settings.json");
    case "win32":
      return join(
        env.APPDATA ?? join(home, "AppData", "Roaming"),
        "Cursor",
        "User",
        "settings.json",
      );
    default:
      return join(env.XDG_CONFIG_HOME ?? join(home, ".config"), "Cursor", "User", "settings.json");
  }
}

export type SettingsFileErrorReason =
  "unparsable" | "not-an-object" | "unreadable" | "damaged-backup";

const settingsFileErrorMarker = Symbol.for("cursor.error.settings-file");
/** The settings file cannot be changed safely; it was left as it was. */
export class SettingsFileError extends CursorError {
  readonly [settingsFileErrorMarker] = true;
  readonly reason: SettingsFileErrorReason;
  readonly path: string;
  constructor({
    reason,
    path,
    message,
    cause,
  }: {
    reason: SettingsFileErrorReason;
    path: string;
    message: string;
    cause?: unknown;
  }) {
    super({ name: "SettingsFileError", message, cause });
    this.reason = reason;
    this.path = path;
  }
  static override isInstance(error: unknown): error is SettingsFileError {
    return typeof error === "object" && error !== null && settingsFileErrorMarker in error;
  }
}

export function backupPathFor(settingsPath: string): string {
  return `${settingsPath}.cursor-gateway-backup`;
}
export function statePathFor(settingsPath: string): string {
  return `${settingsPath}.cursor-gateway-state.json`;
}

const stateSchema = z.object({
  format: z.literal(1),
  existed: z.boolean(),
  /** SHA-256 of the original file (the backup); null when there was no file. */
  backupSha256: z.string().nullable(),
  /** SHA-256 of the file as `--apply` left it. */
  appliedSha256: z.string(),
  /** Each key's value before `--apply` (JSON text), or null when it was absent. */
  previous: z.record(z.string(), z.string().nullable()),
});
type SetupState = z.infer<typeof stateSchema>;

const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  return `line ${line}, column ${column}`;
}

/** The root object of a JSONC text; refuses anything it could not edit safely. */
function parseSettings({ text, path }: { text: string; path: string }): JsonNode | undefined {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, {
    allowTrailingComma: true,
    disallowComments: false,
    allowEmptyContent: true,
  });
  const first = errors[0];
  if (first !== undefined) {
    throw new SettingsFileError({
      reason: "unparsable",
      path,
      message: `${path} is not valid JSON with comments (${printParseErrorCode(first.error)} at ${lineAndColumn(text, first.offset)}); it was left untouched: fix it, or set the keys by hand`,
    });
  }
  if (root !== undefined && root.type !== "object") {
    throw new SettingsFileError({
      reason: "not-an-object",
      path,
      message: `${path} does not hold a settings object (its top level is ${root.type}); it was left untouched`,
    });
  }
  return root;
}

/** A value's JSONC text as data (a previous value may hold comments of its own). */
function jsonValue(text: string): unknown {
  return parseJsonc(text, [], { allowTrailingComma: true, disallowComments: false }) as unknown;
}

function formattingOf(text: string): FormattingOptions {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const indent = /^([ \t]+)\S/m.exec(text)?.[1];
  if (indent?.startsWith("\t") === true) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent?.length ?? 4, eol };
}

function valueText({ text, root, key }: { text: string; root: JsonNode | undefined; key: string }) {
  if (root === undefined) return null;
  const node = findNodeAtLocation(root, [key]);
  return node === undefined ? null : text.slice(node.offset, node.offset + node.length);
}

/** Sets (or, with `undefined`, removes) top-level keys; proves the result reads back right. */
function editSettings({
  text,
  path,
  values,
}: {
  text: string;
  path: string;
  values: Record<string, unknown>;
}): string {
  const formattingOptions = formattingOf(text);
  let edited = text;
  for (const [key, value] of Object.entries(values)) {
    edited = applyEdits(edited, modify(edited, [key], value, { formattingOptions }));
  }
  const root = parseSettings({ text: edited, path });
  for (const [key, value] of Object.entries(values)) {
    const written = valueText({ text: edited, root, key });
    const ok =
      value === undefined
        ? written === null
        : written !== null && JSON.stringify(jsonValue(written)) === JSON.stringify(value);
    if (!ok) {
      throw new SettingsFileError({
        reason: "unparsable",
        path,
        message: `editing ${path} did not give the expected ${key}; it was left untouched`,
      });
    }
  }
  return edited;
}

/** Replaces a file in one step (a crash leaves the old or the new file, never half of one). */
function writeAtomically({
  path,
  content,
  mode,
}: {
  path: string;
  content: string | Buffer;
  mode?: number;
}) {
  const temporary = join(dirname(path), `.${randomBytes(6).toString("hex")}.cursor-gateway.tmp`);
  writeFileSync(temporary, content, mode === undefined ? {} : { mode });
  renameSync(temporary, path);
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new SettingsFileError({
      reason: "unreadable",
      path,
      message: `cannot read ${path}: ${(error as Error).message}`,
      cause: error,
    });
  }
}

function readState(settingsPath: string): SetupState | undefined {
  const statePath = statePathFor(settingsPath);
  if (!existsSync(statePath)) return undefined;
  const parsed = stateSchema.safeParse(JSON.parse(readFileSync(statePath, "utf8")));
  if (!parsed.success) {
    throw new SettingsFileError({
      reason: "damaged-backup",
      path: statePath,
      message: `${statePath} is not a cursor-gateway setup record; move it away to continue`,
    });
  }
  return parsed.data;
}

export type ApplyOutcome = "applied" | "already-applied";

/**
 * Writes the settings into the file, first keeping the original byte for byte next to it
 * (`settings.json.cursor-gateway-backup`, plus a small record of what was there) so `--undo`
 * can restore it. A file it cannot parse is never touched.
 */
export function applyIdeSettings({
  settingsPath,
  settings,
}: {
  settingsPath: string;
  settings: Record<string, SettingValue>;
}): { outcome: ApplyOutcome; backupPath: string | undefined } {
  const existed = existsSync(settingsPath);
  const text = existed ? readText(settingsPath) : "";
  const root = parseSettings({ text, path: settingsPath });
  const state = readState(settingsPath);
  const alreadySet = Object.entries(settings).every(([key, value]) => {
    const written = valueText({ text, root, key });
    return written !== null && JSON.stringify(jsonValue(written)) === JSON.stringify(value);
  });
  if (state !== undefined && alreadySet) {
    return {
      outcome: "already-applied",
      backupPath: state.existed ? backupPathFor(settingsPath) : undefined,
    };
  }
  const edited = editSettings({ text, path: settingsPath, values: settings });
  // A second apply keeps the first backup: that one is the user's original.
  const record: SetupState = state ?? {
    format: 1,
    existed,
    backupSha256: existed ? sha256(readFileSync(settingsPath)) : null,
    appliedSha256: "",
    previous: Object.fromEntries(
      Object.keys(settings).map((key) => [key, valueText({ text, root, key })]),
    ),
  };
  if (state === undefined && existed) {
    writeAtomically({ path: backupPathFor(settingsPath), content: readFileSync(settingsPath) });
  }
  const mode = existed ? statSync(settingsPath).mode & 0o777 : undefined;
  writeAtomically({
    path: statePathFor(settingsPath),
    content: `${JSON.stringify({ ...record, appliedSha256: sha256(edited) }, null, 2)}\n`,
  });
  writeAtomically({ path: settingsPath, content: edited, ...(mode === undefined ? {} : { mode }) });
  return {
    outcome: "applied",
    backupPath: record.existed ? backupPathFor(settingsPath) : undefined,
  };
}

export type UndoOutcome =
  /** The file is again exactly what it was before `--apply`. */
  | "restored"
  /** There was no file before `--apply`; the one it created is gone. */
  | "removed"
  /** The file changed after `--apply`: only the proxy's keys were put back as they were. */
  | "keys-reverted"
  | "nothing-to-undo";

/** Undoes `applyIdeSettings`: byte for byte when the file is as `--apply` left it. */
export function undoIdeSettings({ settingsPath }: { settingsPath: string }): {
  outcome: UndoOutcome;
  backupPath?: string;
} {
  const state = readState(settingsPath);
  if (state === undefined) return { outcome: "nothing-to-undo" };
  const backupPath = backupPathFor(settingsPath);
  const current = existsSync(settingsPath) ? readFileSync(settingsPath) : undefined;
  const finish = () => {
    rmSync(statePathFor(settingsPath), { force: true });
    rmSync(backupPath, { force: true });
  };
  if (current === undefined && !state.existed) {
    finish();
    return { outcome: "removed" };
  }
  // As `--apply` left it, or deleted since: the original comes back as it was.
  if (current === undefined || sha256(current) === state.appliedSha256) {
    if (!state.existed) {
      rmSync(settingsPath);
      finish();
      return { outcome: "removed" };
    }
    const original = existsSync(backupPath) ? readFileSync(backupPath) : undefined;
    if (original === undefined || sha256(original) !== state.backupSha256) {
      throw new SettingsFileError({
        reason: "damaged-backup",
        path: backupPath,
        message: `the backup ${backupPath} is missing or changed; ${settingsPath} was left as it is`,
      });
    }
    writeAtomically({
      path: settingsPath,
      content: original,
      ...(current === undefined ? {} : { mode: statSync(settingsPath).mode & 0o777 }),
    });
    finish();
    return { outcome: "restored" };
  }
  // Edited since (by the user or by Cursor): put back only what `--apply` changed.
  const text = current.toString("utf8");
  parseSettings({ text, path: settingsPath });
  const values = Object.fromEntries(
    Object.entries(state.previous).map(([key, previous]) => [
      key,
      previous === null ? undefined : jsonValue(previous),
    ]),
  );
  const edited = editSettings({ text, path: settingsPath, values });
  writeAtomically({
    path: settingsPath,
    content: edited,
    mode: statSync(settingsPath).mode & 0o777,
  });
  rmSync(statePathFor(settingsPath), { force: true });
  return { outcome: "keys-reverted", ...(state.existed ? { backupPath } : {}) };
}

/** What the file says now for each key (for `doctor`); undefined values are absent keys. */
export function readIdeSettings({
  settingsPath,
  keys,
}: {
  settingsPath: string;
  keys: readonly string[];
}): Record<string, unknown> {
  const text = readText(settingsPath);
  const root = parseSettings({ text, path: settingsPath });
  return Object.fromEntries(
    keys.map((key) => {
      const written = valueText({ text, root, key });
      return [key, written === null ? undefined : jsonValue(written)];
    }),
  );
}
