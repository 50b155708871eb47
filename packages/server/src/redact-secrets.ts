import { SecretRedactor } from "./redaction/secret-redactor.js";

/**
 * Removes `secrets` (in every form `SecretRedactor` knows) and anything shaped like a provider
 * key from one diagnostic text. For repeated use, keep a `SecretRedactor`.
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  return new SecretRedactor({ secrets }).redact(text);
}
