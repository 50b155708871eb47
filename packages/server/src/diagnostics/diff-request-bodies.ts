import { firstDivergence, withoutCacheControl } from "@cursor/fake-provider";
import type { Divergence, PromptSegment } from "@cursor/fake-provider";
import { providerHistoryItems, sharedPrefixItems } from "../providers/provider-history-items.js";
import {
  cacheNamespaceFields,
  detectProviderFormat,
  isRecord,
  promptSegments,
  valueAtPath,
} from "./provider-body.js";
import type { ProviderFormat } from "./provider-body.js";
import { textDiff } from "./text-diff.js";
import { findVolatileValue } from "./volatile-values.js";
import type { VolatileValue } from "./volatile-values.js";

export interface BodySummary {
  readonly segments: number;
  readonly tokens: number;
  /** Entries of the append-only list (`input`, `messages`, Anthropic content blocks). */
  readonly historyItems: number;
}

/** Why the later body does not start with the earlier one, as far as the bodies tell. */
export type CauseKind =
  | "append-only"
  | "identical"
  | "namespace"
  | "tools"
  | "schema"
  | "instructions"
  | "key-order"
  | "edited"
  | "inserted"
  | "removed"
  | "reordered"
  | "truncated";

export interface LikelyCause {
  readonly kind: CauseKind;
  /** One sentence for people. */
  readonly summary: string;
  readonly volatile?: VolatileValue;
}

export interface PrefixDivergenceDetail {
  /** Index of the first differing segment (prefix order). */
  readonly segment: number;
  /** What sits there in the later body (`input item 41`, `tools`, …; `(end)` when it ended). */
  readonly label: string;
  readonly previousLabel: string;
  /** The first differing JSON path inside it, e.g. `input[41].content[0].text`. */
  readonly path: string;
  readonly reason: Divergence["reason"] | "ended";
}

export interface BodyDiff {
  readonly format: ProviderFormat;
  readonly previous: BodySummary;
  readonly current: BodySummary;
  /** Fields choosing the cache namespace that differ (`model`, `prompt_cache_key`, …). */
  readonly namespaceChanges: readonly {
    readonly field: string;
    readonly previous: unknown;
    readonly current: unknown;
  }[];
  readonly sharedSegments: number;
  readonly sharedTokens: number;
  readonly sharedHistoryItems: number;
  readonly divergence?: PrefixDivergenceDetail;
  readonly cause: LikelyCause;
  /** A readable diff of the diverging item (empty when nothing diverged). */
  readonly diff: readonly string[];
}

type JsonRecord = Record<string, unknown>;
const end = "(end)";

const isHistoryLabel = (label: string) =>
  label.startsWith("input item") || label.startsWith("message ");
const isToolsLabel = (label: string) => label === "tools" || label.startsWith("tool ");
const isInstructionsLabel = (label: string) =>
  label === "instructions" || label.startsWith("system");

/**
 * Compares two provider request bodies the way the provider's prefix cache does (segments in
 * prefix order, Anthropic markers ignored, received key order kept) and explains the first
 * difference: where it is, what changed there and the likely cause.
 */
export function diffRequestBodies({
  previous,
  current,
  format: givenFormat,
}: {
  previous: unknown;
  current: unknown;
  format?: ProviderFormat;
}): BodyDiff {
  if (!isRecord(previous) || !isRecord(current)) {
    throw new TypeError("both request bodies must be JSON objects");
  }
  const format =
    givenFormat ??
    detectProviderFormat(current) ??
    detectProviderFormat(previous) ??
    "openai-responses";
  const a = promptSegments(previous, format);
  const b = promptSegments(current, format);
  let shared = 0;
  while (shared < a.length && shared < b.length && a[shared]!.bytes === b[shared]!.bytes)
    shared += 1;
  const sharedTokens = a.slice(0, shared).reduce((sum, segment) => sum + segment.tokens, 0);
  const namespaceChanges = namespaceDifferences(previous, current, format);
  const base = {
    format,
    previous: summarize(previous, a),
    current: summarize(current, b),
    namespaceChanges,
    sharedSegments: shared,
    sharedTokens,
    sharedHistoryItems: sharedPrefixItems(previous, current),
  };
  if (shared === a.length) {
    const cause: LikelyCause =
      a.length === b.length
        ? { kind: "identical", summary: "the prompts are identical" }
        : {
            kind: "append-only",
            summary: `the later body extends the earlier one by ${b.length - a.length} segment(s): append-only, the whole earlier prompt can be read from the cache`,
          };
    return { ...base, cause: withNamespace(cause, namespaceChanges), diff: [] };
  }
  const left = a[shared]!;
  const right = b[shared];
  const leftValue = segmentValue(previous, left, format);
  const rightValue = right === undefined ? undefined : segmentValue(current, right, format);
  const inner =
    right === undefined
      ? undefined
      : segmentDivergence({ previous, current, left, right, leftValue, rightValue, format });
  const divergence: PrefixDivergenceDetail = {
    segment: shared,
    label: right?.label ?? end,
    previousLabel: left.label,
    path: inner?.path ?? right?.path ?? left.path,
    reason: right === undefined ? "ended" : (inner?.reason ?? "value"),
  };
  const cause = withNamespace(
    classify({ previous, current, a, b, shared, format, inner }),
    namespaceChanges,
  );
  const diff =
    right === undefined
      ? [
          `  the later body ends here; the earlier one goes on with ${left.label} and ${a.length - shared - 1} more`,
        ]
      : inner?.reason === "value" &&
          typeof inner.left === "string" &&
          typeof inner.right === "string"
        ? textDiff(inner.left, inner.right)
        : textDiff(pretty(leftValue), pretty(rightValue));
  return { ...base, divergence, cause, diff };
}

function summarize(body: JsonRecord, segments: readonly PromptSegment[]): BodySummary {
  return {
    segments: segments.length,
    tokens: segments.reduce((sum, segment) => sum + segment.tokens, 0),
    historyItems: providerHistoryItems(body).length,
  };
}

function namespaceDifferences(previous: JsonRecord, current: JsonRecord, format: ProviderFormat) {
  const before = cacheNamespaceFields(previous, format);
  const after = cacheNamespaceFields(current, format);
  return Object.keys(after)
    .filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]))
    .map((field) => ({ field, previous: before[field], current: after[field] }));
}

/** `model "a" → "b", tool_choice (absent) → {"type":"any"}`, long values cut. */
export function describeNamespaceChanges(changes: BodyDiff["namespaceChanges"]): string {
  const show = (value: unknown) => {
    const text = JSON.stringify(value) ?? "(absent)";
    return text.length > 60 ? `${text.slice(0, 57)}...` : text;
  };
  return changes.map((c) => `${c.field} ${show(c.previous)} → ${show(c.current)}`).join(", ");
}

/** A namespace change outranks everything: the provider looks in another cache altogether. */
function withNamespace(cause: LikelyCause, changes: BodyDiff["namespaceChanges"]): LikelyCause {
  if (changes.length === 0) return cause;
  const fields = describeNamespaceChanges(changes);
  return {
    kind: "namespace",
    summary: `the cache namespace changed (${fields}): the provider looks in another cache, nothing of the earlier prompt can be read${cause.kind === "identical" || cause.kind === "append-only" ? "" : `; besides, ${cause.summary}`}`,
    ...(cause.volatile === undefined ? {} : { volatile: cause.volatile }),
  };
}

/** The JSON a segment was rendered from (Anthropic: without `cache_control`). */
function segmentValue(body: JsonRecord, segment: PromptSegment, format: ProviderFormat): unknown {
  const value = valueAtPath(body, segment.path);
  return format === "anthropic" ? withoutCacheControl(value) : value;
}

/** An Anthropic block's message role (rendered into its segment). */
function roleOf(body: JsonRecord, segment: PromptSegment): unknown {
  const message = valueAtPath(body, segment.path.replace(/\.content(\[\d+\])?$/, ""));
  return isRecord(message) ? message.role : undefined;
}

/** The first difference inside the first differing segment, with its path in the later body. */
function segmentDivergence({
  previous,
  current,
  left,
  right,
  leftValue,
  rightValue,
  format,
}: {
  previous: JsonRecord;
  current: JsonRecord;
  left: PromptSegment;
  right: PromptSegment;
  leftValue: unknown;
  rightValue: unknown;
  format: ProviderFormat;
}): Divergence | undefined {
  if (
    format === "anthropic" &&
    right.label.startsWith("message ") &&
    left.label.startsWith("message ")
  ) {
    const before = roleOf(previous, left);
    const after = roleOf(current, right);
    if (before !== after) {
      const messagePath = right.path.replace(/\.content(\[\d+\])?$/, "");
      return { path: `${messagePath}.role`, reason: "value", left: before, right: after };
    }
  }
  return firstDivergence(leftValue, rightValue, right.path) ?? undefined;
}

function pretty(value: unknown): string {
  return value === undefined ? "(absent)" : (JSON.stringify(value, null, 2) ?? String(value));
}

const toolName = (tool: unknown): string => {
  if (!isRecord(tool)) return "?";
  if (typeof tool.name === "string") return tool.name;
  const fn = tool.function;
  return isRecord(fn) && typeof fn.name === "string" ? fn.name : "?";
};

function describeTools(previous: JsonRecord, current: JsonRecord): string {
  const before = Array.isArray(previous.tools) ? previous.tools : [];
  const after = Array.isArray(current.tools) ? current.tools : [];
  const beforeByName = new Map(before.map((tool) => [toolName(tool), JSON.stringify(tool)]));
  const afterByName = new Map(after.map((tool) => [toolName(tool), JSON.stringify(tool)]));
  const added = [...afterByName.keys()].filter((name) => !beforeByName.has(name));
  const removed = [...beforeByName.keys()].filter((name) => !afterByName.has(name));
  const changed = [...afterByName.keys()].filter(
    (name) => beforeByName.has(name) && beforeByName.get(name) !== afterByName.get(name),
  );
  const parts = [
    ...(added.length > 0 ? [`added ${added.join(", ")}`] : []),
    ...(removed.length > 0 ? [`removed ${removed.join(", ")}`] : []),
    ...(changed.length > 0 ? [`changed ${changed.join(", ")}`] : []),
  ];
  if (parts.length === 0) {
    const sameOrder = before.map(toolName).join() === after.map(toolName).join();
    parts.push(sameOrder ? "same tools, different bytes (key order or formatting)" : "reordered");
  }
  return parts.join("; ");
}

function volatileIn(inner: Divergence | undefined, left: string, right: string) {
  if (
    inner?.reason === "value" &&
    typeof inner.left === "string" &&
    typeof inner.right === "string"
  ) {
    return findVolatileValue(inner.left, inner.right);
  }
  return findVolatileValue(left, right);
}

const volatileAdvice = (volatile: VolatileValue | undefined) =>
  volatile === undefined
    ? ""
    : ` — a volatile value (${volatile.kind}) sits in the diverging text: ${JSON.stringify(volatile.before ?? "(none)")} → ${JSON.stringify(volatile.after ?? "(none)")}; keep clocks and ids out of the stable prefix`;

function classify({
  previous,
  current,
  a,
  b,
  shared,
  format,
  inner,
}: {
  previous: JsonRecord;
  current: JsonRecord;
  a: readonly PromptSegment[];
  b: readonly PromptSegment[];
  shared: number;
  format: ProviderFormat;
  inner: Divergence | undefined;
}): LikelyCause {
  const left = a[shared]!;
  const right = b[shared];
  if (right === undefined) {
    return {
      kind: "truncated",
      summary: `the later body is shorter and ends inside the earlier prompt (${a.length - shared} segment(s) from ${left.label} on are gone): a compaction, or history removed from the end`,
    };
  }
  if (inner?.reason === "key-order") {
    return {
      kind: "key-order",
      summary: `${right.label} has the same content with its keys in another order: a serialiser that is not deterministic`,
    };
  }
  if (isToolsLabel(right.label) || isToolsLabel(left.label)) {
    return { kind: "tools", summary: `the tools changed (${describeTools(previous, current)})` };
  }
  if (right.label === "schema" || left.label === "schema") {
    return { kind: "schema", summary: "the structured-output schema changed" };
  }
  if (isInstructionsLabel(right.label) || isInstructionsLabel(left.label)) {
    const volatile = volatileIn(inner, left.bytes, right.bytes);
    return {
      kind: "instructions",
      summary: `the instructions (system prompt) changed${volatileAdvice(volatile)}`,
      ...(volatile === undefined ? {} : { volatile }),
    };
  }
  if (isHistoryLabel(right.label) && isHistoryLabel(left.label)) {
    return classifyHistory({ a, b, shared, inner });
  }
  return {
    kind: "edited",
    summary: `${left.label} became ${right.label} (${format} prompt layout changed)`,
  };
}

/** Inserted, removed, reordered or edited, from where the two sides' items reappear. */
function classifyHistory({
  a,
  b,
  shared,
  inner,
}: {
  a: readonly PromptSegment[];
  b: readonly PromptSegment[];
  shared: number;
  inner: Divergence | undefined;
}): LikelyCause {
  const left = a[shared]!;
  const right = b[shared]!;
  const laterInB = b.findIndex((s, i) => i > shared && s.bytes === left.bytes);
  const laterInA = a.findIndex((s, i) => i > shared && s.bytes === right.bytes);
  if (laterInB !== -1 && laterInA !== -1) {
    return {
      kind: "reordered",
      summary: `earlier history items were reordered: ${left.label} of the earlier body now sits at position ${laterInB}, and ${right.label} comes from position ${laterInA}`,
    };
  }
  if (laterInB !== -1) {
    return {
      kind: "inserted",
      summary: `${laterInB - shared} item(s) were inserted before ${left.label} of the earlier body (history must only grow at its end)`,
    };
  }
  if (laterInA !== -1) {
    return {
      kind: "removed",
      summary: `${laterInA - shared} earlier item(s) were removed, from ${left.label} on (history must only grow at its end)`,
    };
  }
  const volatile = volatileIn(inner, left.bytes, right.bytes);
  return {
    kind: "edited",
    summary: `an earlier message was edited: ${right.label} differs from the earlier body's${volatileAdvice(volatile)}`,
    ...(volatile === undefined ? {} : { volatile }),
  };
}
