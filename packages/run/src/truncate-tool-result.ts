/**
 * Deterministic truncation of an oversized tool result for the request only: keeps the head and
 * the tail and names how much was cut. A result of exactly `maxChars` (or less) is untouched.
 * Same input and limit always give the same text, so a truncated result never breaks the prefix.
 */
export function truncateToolResult(content: string, maxChars: number): string {
  if (content.length <= maxChars) return content;
  const marker = (omitted: number) => `\n[… ${omitted} characters omitted …]\n`;
  // Reserve room for the marker with the widest omitted count it could show.
  const budget = Math.max(0, maxChars - marker(content.length).length);
  const headLength = Math.ceil(budget * 0.6);
  const tailLength = budget - headLength;
  const omitted = content.length - headLength - tailLength;
  const tail = tailLength > 0 ? content.slice(content.length - tailLength) : "";
  return `${content.slice(0, headLength)}${marker(omitted)}${tail}`;
}
