/**
 * The Messages API refuses text blocks that are empty or whitespace only ("text content blocks
 * must contain non-whitespace text"), in any role and inside tool results. Such text carries
 * nothing for the model, so converters leave the block out — deterministically, so the prefix
 * is unaffected.
 */
export function isSendableText(text: string): boolean {
  return /\S/u.test(text);
}
