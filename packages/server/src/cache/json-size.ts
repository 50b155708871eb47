/**
 * About the length of `JSON.stringify(value)`, without building it: string lengths plus their
 * quotes, keys, numbers and punctuation; escapes are not counted. A walk that allocates nothing,
 * for sizing what a cache holds (an estimate, never a wire format).
 */
export function jsonSize(value: unknown): number {
  switch (typeof value) {
    case "string":
      return value.length + 2;
    case "number":
      return Number.isInteger(value) && Math.abs(value) < 1e9 ? digits(value) : 24;
    case "boolean":
      return value ? 4 : 5;
    case "object": {
      if (value === null) return 4;
      if (Array.isArray(value)) {
        let size = 2 + Math.max(0, value.length - 1);
        for (const item of value) size += jsonSize(item);
        return size;
      }
      let size = 2;
      let first = true;
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined) continue;
        size += (first ? 0 : 1) + key.length + 3 + jsonSize(item);
        first = false;
      }
      return size;
    }
    default:
      return 0;
  }
}

function digits(value: number): number {
  let size = value < 0 ? 2 : 1;
  for (let rest = Math.abs(value); rest >= 10; rest = Math.floor(rest / 10)) size += 1;
  return size;
}
