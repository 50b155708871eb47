/** Lines of `text` (LF), without the empty string after a final newline. */
function lines(text: string): string[] {
  if (text === "") return [];
  const all = text.split("\n");
  if (all.at(-1) === "") all.pop();
  return all;
}

export interface LineDiff {
  readonly added: number;
  readonly removed: number;
  /** One unified-diff hunk covering the changed region (empty when nothing changed). */
  readonly text: string;
}

/**
 * A line diff of `before` → `after` as one hunk: the common leading and trailing lines are
 * trimmed and everything between is shown as removed then added. Deterministic and O(n); an
 * edit changes one region, so one hunk is what the model and the IDE need to see.
 */
export function lineDiff({
  path,
  before,
  after,
}: {
  path: string;
  before: string;
  after: string;
}): LineDiff {
  const a = lines(before);
  const b = lines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) {
    tail += 1;
  }
  const removed = a.slice(head, a.length - tail);
  const added = b.slice(head, b.length - tail);
  if (removed.length === 0 && added.length === 0) return { added: 0, removed: 0, text: "" };
  const header = `--- ${path}\n+++ ${path}\n@@ -${head + 1},${removed.length} +${head + 1},${added.length} @@\n`;
  const body = [...removed.map((line) => `-${line}`), ...added.map((line) => `+${line}`)].join(
    "\n",
  );
  return { added: added.length, removed: removed.length, text: `${header}${body}\n` };
}
