const redactedMark = "[redacted]";

// Provider keys look like this; some OpenAI-compatible servers echo the key in error texts.
// Applied to diagnostics (errors, warnings, logs) only: model output may legitimately show such
// shapes (an example key in documentation), and a configured key is matched exactly anyway.
const keyShapes = [/\bsk-ant-[A-Za-z0-9_-]{8,}/g, /\bsk-[A-Za-z0-9_-]{8,}/g];

/** Secrets shorter than this are not redacted (they would match ordinary text). */
const minSecretLength = 8;
/** Encoded forms shorter than this are not matched on their own (base64 of short secrets). */
const minVariantLength = 8;

/**
 * The gateway's one redaction path. Holds every secret that must never leave the gateway (the
 * configured provider keys, the Cursor IDE's session token once a front door registers it) and
 * removes each, in every form an upstream may echo it in (plain, URL-encoded, JSON-escaped,
 * base64 and base64url at any alignment), from whatever text is about to leave: run events,
 * error messages, log lines, provider-request records, stored run errors.
 *
 * Two strengths: `redact` (diagnostics) also removes anything shaped like a provider key;
 * `redactContent` (model output on its way into the history) removes the exact secrets only.
 */
export class SecretRedactor {
  readonly #maxRegistered: number;
  /** Configured secrets: never evicted. */
  readonly #configured = new Set<string>();
  /** Registered at run time (least recently registered first); bounded. */
  readonly #registered = new Set<string>();
  #matcher: VariantMatcher | undefined;

  constructor({
    secrets = [],
    maxRegistered = 256,
  }: { secrets?: readonly string[]; maxRegistered?: number } = {}) {
    this.#maxRegistered = maxRegistered;
    for (const secret of secrets) {
      if (secret.length >= minSecretLength) this.#configured.add(secret);
    }
    this.#matcher = buildMatcher(this.#all());
  }

  /**
   * Adds a secret learnt at run time (the Cursor IDE's `Authorization` token, by the wire front
   * door). Idempotent; the least recently registered is forgotten beyond `maxRegistered`.
   */
  register(secret: string): void {
    if (secret.length < minSecretLength || this.#configured.has(secret)) return;
    if (this.#registered.has(secret)) {
      this.#registered.delete(secret);
      this.#registered.add(secret);
      return;
    }
    this.#registered.add(secret);
    for (const oldest of this.#registered) {
      if (this.#registered.size <= this.#maxRegistered) break;
      this.#registered.delete(oldest);
    }
    this.#matcher = buildMatcher(this.#all());
  }

  /** How many secrets are redacted. */
  get size(): number {
    return this.#configured.size + this.#registered.size;
  }

  /** Diagnostic text (errors, warnings, log lines): the secrets and anything key-shaped. */
  redact(text: string): string {
    let redacted = this.redactContent(text);
    for (const shape of keyShapes) redacted = redacted.replace(shape, redactedMark);
    return redacted;
  }

  /** Content (model output, records of what was sent): the exact secrets in every form. */
  redactContent(text: string): string {
    const matcher = this.#matcher;
    if (matcher === undefined || text.length < matcher.minLength) return text;
    matcher.pattern.lastIndex = 0;
    return matcher.pattern.test(text) ? text.replace(matcher.pattern, redactedMark) : text;
  }

  /**
   * A JSON-like value with every string (and object key) passed through `redactContent`;
   * returns the value itself when nothing had to change, so a clean value costs no copy.
   */
  redactValue<T>(value: T): T {
    if (this.#matcher === undefined) return value;
    return redactDeep(value, (text) => this.redactContent(text)) as T;
  }

  /** An error's message and stack (and its causes'), redacted in place; returns it. */
  redactError<T>(error: T): T {
    let current: unknown = error;
    for (let depth = 0; depth < 8 && current instanceof Error; depth += 1) {
      current.message = this.redact(current.message);
      if (typeof current.stack === "string") current.stack = this.redact(current.stack);
      current = current.cause;
    }
    return error;
  }

  /**
   * A redactor for one stream of text deltas: a secret split across two deltas is still found,
   * because a delta's tail that could begin a secret is held back until the next delta (or
   * `flush`) shows whether it does. Nothing is held back when no secret could start there.
   */
  stream(): StreamRedactor {
    return new StreamRedactor(() => this.#matcher);
  }

  #all(): string[] {
    return [...this.#configured, ...this.#registered];
  }
}

/** See `SecretRedactor.stream`. */
export class StreamRedactor {
  readonly #matcher: () => VariantMatcher | undefined;
  #held = "";

  constructor(matcher: () => VariantMatcher | undefined) {
    this.#matcher = matcher;
  }

  /** The part of `held + delta` that is safe to emit now. */
  push(delta: string): string {
    const matcher = this.#matcher();
    if (matcher === undefined) return this.#held === "" ? delta : this.flush() + delta;
    let text = this.#held + delta;
    matcher.pattern.lastIndex = 0;
    if (matcher.pattern.test(text)) text = text.replace(matcher.pattern, redactedMark);
    const cut = holdBackFrom(text, matcher);
    this.#held = text.slice(cut);
    return text.slice(0, cut);
  }

  /** Whatever is still held back (it turned out not to be a secret). */
  flush(): string {
    const held = this.#held;
    this.#held = "";
    return held;
  }
}

interface VariantMatcher {
  readonly pattern: RegExp;
  readonly variants: readonly string[];
  /** First characters of the variants (where a held-back tail may start). */
  readonly starts: ReadonlySet<string>;
  readonly minLength: number;
  readonly maxLength: number;
}

function buildMatcher(secrets: readonly string[]): VariantMatcher | undefined {
  const variants = new Set<string>();
  for (const secret of secrets) for (const variant of secretVariants(secret)) variants.add(variant);
  if (variants.size === 0) return undefined;
  // Longest first, so a longer form wins over a shorter form that starts at the same place.
  const sorted = [...variants].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  return {
    pattern: new RegExp(sorted.map(escapeRegExp).join("|"), "g"),
    variants: sorted,
    starts: new Set(sorted.map((variant) => variant[0]!)),
    minLength: sorted.at(-1)!.length,
    maxLength: sorted[0]!.length,
  };
}

/**
 * Every form in which an upstream may echo `secret`: itself, URL-encoded (both hex cases, `+`
 * for spaces as forms do), JSON-escaped, and its base64 / base64url encodings at each of the three
 * byte alignments it can have inside a longer encoded text (only the characters that depend on
 * the secret's bytes alone, so a match does not depend on what surrounds it).
 */
export function secretVariants(secret: string): readonly string[] {
  const variants = new Set<string>([secret]);
  const uri = encodeURIComponent(secret);
  variants.add(uri);
  variants.add(uri.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()));
  variants.add(uri.replace(/%20/g, "+"));
  variants.add(JSON.stringify(secret).slice(1, -1));
  const bytes = Buffer.from(secret, "utf8");
  for (let offset = 0; offset < 3; offset += 1) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    // Character i covers bits [6i, 6i + 6); keep those inside the secret's bits.
    const first = Math.ceil((8 * offset) / 6);
    const end = Math.floor((8 * (offset + bytes.length)) / 6);
    const core = encoded.slice(first, end);
    variants.add(core);
    variants.add(core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return [...variants].filter((variant) => variant.length >= minVariantLength);
}

/** Where the longest tail of `text` that is a proper prefix of a variant begins (else its end). */
function holdBackFrom(text: string, matcher: VariantMatcher): number {
  const from = Math.max(0, text.length - (matcher.maxLength - 1));
  for (let start = from; start < text.length; start += 1) {
    if (!matcher.starts.has(text[start]!)) continue;
    const tail = text.slice(start);
    if (
      matcher.variants.some((variant) => variant.length > tail.length && variant.startsWith(tail))
    ) {
      return start;
    }
  }
  return text.length;
}

function redactDeep(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const redacted = redactDeep(item, redact);
      if (redacted !== item) {
        copy ??= [...value];
        copy[index] = redacted;
      }
    });
    return copy ?? value;
  }
  if (typeof value === "object" && value !== null) {
    let changed = false;
    const entries = Object.entries(value).map(([key, item]) => {
      const redactedKey = redact(key);
      const redacted = redactDeep(item, redact);
      if (redactedKey !== key || redacted !== item) changed = true;
      return [redactedKey, redacted] as const;
    });
    return changed ? Object.fromEntries(entries) : value;
  }
  return value;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
