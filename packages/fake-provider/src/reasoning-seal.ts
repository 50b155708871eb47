import { createHmac, timingSafeEqual } from "node:crypto";
import { canonicalJson } from "@cursor/run";

/**
 * Opaque reasoning state the fake provider hands out and verifies when it is replayed, like the
 * real APIs: Anthropic thinking signatures bind the exact history before the block, so edited
 * history is refused; OpenAI encrypted reasoning content must come back byte-identical.
 */
export class ReasoningSeal {
  readonly #secret: string;

  constructor(secret: string) {
    this.#secret = secret;
  }

  #mac(purpose: string, payload: string): string {
    return createHmac("sha256", this.#secret)
      .update(purpose)
      .update("\u0000")
      .update(payload)
      .digest("base64");
  }

  /**
   * Signature of an Anthropic thinking block: HMAC over the canonical JSON of every message before
   * the block (markers removed, since moving a marker is allowed), the blocks of its own message
   * before it, and the thinking text.
   */
  thinkingSignature({
    history,
    precedingBlocks,
    thinking,
  }: {
    history: readonly unknown[];
    precedingBlocks: readonly unknown[];
    thinking: string;
  }): string {
    const payload = canonicalJson({ history, precedingBlocks, thinking });
    return `sig_${this.#mac("anthropic.thinking", payload)}`;
  }

  verifyThinkingSignature(input: {
    history: readonly unknown[];
    precedingBlocks: readonly unknown[];
    thinking: string;
    signature: string;
  }): boolean {
    return safeEqual(this.thinkingSignature(input), input.signature);
  }

  /** `data` of a redacted_thinking block: the sealed reasoning, bound like a signature. */
  redactedThinkingData(input: {
    history: readonly unknown[];
    precedingBlocks: readonly unknown[];
    thinking: string;
  }): string {
    const sealed = Buffer.from(input.thinking, "utf8").toString("base64");
    return `${sealed}.${this.thinkingSignature(input)}`;
  }

  verifyRedactedThinkingData(input: {
    history: readonly unknown[];
    precedingBlocks: readonly unknown[];
    data: string;
  }): boolean {
    const dot = input.data.indexOf(".");
    if (dot < 0) return false;
    const thinking = Buffer.from(input.data.slice(0, dot), "base64").toString("utf8");
    const signature = input.data.slice(dot + 1);
    return this.verifyThinkingSignature({ ...input, thinking, signature });
  }

  /**
   * `encrypted_content` of an OpenAI reasoning item. Like the real one it is not bound to the
   * history (only to itself): any edit of the opaque string is refused on replay.
   */
  encryptedReasoning(reasoning: string): string {
    const sealed = Buffer.from(reasoning, "utf8").toString("base64");
    return `enc_${sealed}.${this.#mac("openai.reasoning", reasoning)}`;
  }

  verifyEncryptedReasoning(encrypted: string): boolean {
    if (!encrypted.startsWith("enc_")) return false;
    const dot = encrypted.indexOf(".");
    if (dot < 0) return false;
    const reasoning = Buffer.from(encrypted.slice(4, dot), "base64").toString("utf8");
    return safeEqual(this.encryptedReasoning(reasoning), encrypted);
  }
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
