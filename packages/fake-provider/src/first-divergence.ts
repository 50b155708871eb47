/** The first place two JSON values differ, in serialisation order. */
export interface Divergence {
  /** e.g. `input[41].content[0].text`; empty for the root. */
  readonly path: string;
  /**
   * `value`: different primitives; `type`: different JSON types; `missing`: present on the left
   * only; `extra`: present on the right only; `key-order`: same keys, different order.
   */
  readonly reason: "value" | "type" | "missing" | "extra" | "key-order";
  readonly left: unknown;
  readonly right: unknown;
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Appends an object key to a path (`a.b`, or `a["x-y"]` when the key is not an identifier). */
export function joinPath(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  if (identifier.test(key)) return path === "" ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

type JsonKind =
  "null" | "array" | "object" | "string" | "number" | "boolean" | "undefined" | "other";

function kindOf(value: unknown): JsonKind {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "object":
      return "object";
    case "string":
      return "string";
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "undefined":
      return "undefined";
    default:
      return "other";
  }
}

/**
 * Walks two JSON values in serialisation order (object keys in their own order, so a key-order
 * change is a divergence, as it is in the bytes) and returns the first difference, or null when
 * they serialise identically. `basePath` prefixes every reported path.
 */
export function firstDivergence(left: unknown, right: unknown, basePath = ""): Divergence | null {
  const leftKind = kindOf(left);
  const rightKind = kindOf(right);
  if (leftKind !== rightKind) return { path: basePath, reason: "type", left, right };
  if (leftKind === "array") {
    const a = left as readonly unknown[];
    const b = right as readonly unknown[];
    const shared = Math.min(a.length, b.length);
    for (let i = 0; i < shared; i += 1) {
      const inner = firstDivergence(a[i], b[i], joinPath(basePath, i));
      if (inner !== null) return inner;
    }
    if (a.length > shared)
      return {
        path: joinPath(basePath, shared),
        reason: "missing",
        left: a[shared],
        right: undefined,
      };
    if (b.length > shared)
      return {
        path: joinPath(basePath, shared),
        reason: "extra",
        left: undefined,
        right: b[shared],
      };
    return null;
  }
  if (leftKind === "object") {
    const a = left as Readonly<Record<string, unknown>>;
    const b = right as Readonly<Record<string, unknown>>;
    const leftKeys = Object.keys(a).filter((key) => a[key] !== undefined);
    const rightKeys = Object.keys(b).filter((key) => b[key] !== undefined);
    const count = Math.max(leftKeys.length, rightKeys.length);
    for (let i = 0; i < count; i += 1) {
      const leftKey = leftKeys[i];
      const rightKey = rightKeys[i];
      if (leftKey === rightKey && leftKey !== undefined) {
        const inner = firstDivergence(a[leftKey], b[leftKey], joinPath(basePath, leftKey));
        if (inner !== null) return inner;
        continue;
      }
      if (leftKey !== undefined && (rightKey === undefined || b[leftKey] === undefined)) {
        return {
          path: joinPath(basePath, leftKey),
          reason: "missing",
          left: a[leftKey],
          right: undefined,
        };
      }
      if (rightKey !== undefined && (leftKey === undefined || a[rightKey] === undefined)) {
        return {
          path: joinPath(basePath, rightKey),
          reason: "extra",
          left: undefined,
          right: b[rightKey],
        };
      }
      return {
        path: joinPath(basePath, leftKey!),
        reason: "key-order",
        left: leftKeys,
        right: rightKeys,
      };
    }
    return null;
  }
  return Object.is(left, right) ? null : { path: basePath, reason: "value", left, right };
}

/** The path of `target` (found by identity) inside `root`, or undefined. */
export function pathOf(root: unknown, target: unknown, basePath = ""): string | undefined {
  if (root === target) return basePath;
  if (Array.isArray(root)) {
    for (let i = 0; i < root.length; i += 1) {
      const found = pathOf(root[i], target, joinPath(basePath, i));
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof root === "object" && root !== null) {
    for (const [key, value] of Object.entries(root)) {
      const found = pathOf(value, target, joinPath(basePath, key));
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** One line for failure messages: `input[3].content[0].text (value): "a" → "b"`. */
export function formatDivergence(divergence: Divergence): string {
  const show = (value: unknown) => {
    const text = value === undefined ? "(absent)" : JSON.stringify(value);
    return text.length > 120 ? `${text.slice(0, 117)}...` : text;
  };
  return `${divergence.path || "(root)"} (${divergence.reason}): ${show(divergence.left)} → ${show(divergence.right)}`;
}
