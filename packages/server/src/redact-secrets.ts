// Provider keys look like this; some OpenAI-compatible servers echo the key in error texts.
const keyPatterns = [/\bsk-ant-[A-Za-z0-9_-]{8,}/g, /\bsk-[A-Za-z0-9_-]{8,}/g];

/**
 * Removes the configured secrets and anything shaped like a provider key from a text before it
 * is stored, logged or sent to a client (a provider error message may quote the key).
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let redacted = text;
  for (const secret of secrets) {
    if (secret.length >= 8) redacted = redacted.split(secret).join("[redacted]");
  }
  for (const pattern of keyPatterns) redacted = redacted.replace(pattern, "[redacted]");
  return redacted;
}
