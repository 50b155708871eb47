import { createCursorPromptSpec } from "@cursor/request";
import type { McpServerInput } from "@cursor/request";
import type { PromptSpec } from "@cursor/run";
import { canonicalJson } from "@cursor/run";

/**
 * The Cursor prompt spec for a conversation's MCP servers, built once per distinct set: building
 * one renders the instructions and canonicalises every tool schema, which no request should pay
 * for again while its context does not change. Keyed by the servers' array (a continuation reuses
 * the head's) and by their canonical JSON (a new request carries equal copies); least recently
 * used out first. Specs are immutable values, so sharing them is safe.
 */
export class PromptSpecCache {
  readonly #maxEntries: number;
  readonly #byArray = new WeakMap<readonly McpServerInput[], PromptSpec>();
  readonly #byKey = new Map<string, PromptSpec>();

  constructor({ maxEntries = 64 }: { maxEntries?: number } = {}) {
    this.#maxEntries = maxEntries;
  }

  get size(): number {
    return this.#byKey.size;
  }

  specFor(mcpServers: readonly McpServerInput[] | undefined): PromptSpec {
    if (mcpServers !== undefined) {
      const known = this.#byArray.get(mcpServers);
      if (known !== undefined) return known;
    }
    const key = mcpServers === undefined ? "" : canonicalJson(mcpServers);
    let spec = this.#byKey.get(key);
    if (spec === undefined) {
      spec = createCursorPromptSpec(
        mcpServers === undefined ? {} : { mcpServers: [...mcpServers] },
      );
    } else {
      this.#byKey.delete(key);
    }
    this.#byKey.set(key, spec);
    for (const [oldest] of this.#byKey) {
      if (this.#byKey.size <= this.#maxEntries) break;
      this.#byKey.delete(oldest);
    }
    if (mcpServers !== undefined) this.#byArray.set(mcpServers, spec);
    return spec;
  }
}
