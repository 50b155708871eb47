import { createCursorPromptSpec } from "@cursor/request";
import type { McpServerInput } from "@cursor/request";
import type { PromptSpec } from "@cursor/run";
import { canonicalJson } from "@cursor/run";
import type { CacheLedger } from "./cache/cache-ledger.js";
import { jsonSize } from "./cache/json-size.js";

interface CachedSpec {
  readonly spec: PromptSpec;
  readonly ledgerKey: string;
}

/**
 * The Cursor prompt spec for a conversation's MCP servers, built once per distinct set: building
 * one renders the instructions and canonicalises every tool schema, which no request should pay
 * for again while its context does not change. Keyed by the servers' array (a continuation reuses
 * the head's) and by their canonical JSON (a new request carries equal copies); each spec is an
 * entry of the gateway's cache ledger (sized once, when built), so specs leave with the least
 * recently used of everything else. Specs are immutable values, so sharing them is safe.
 */
export class PromptSpecCache {
  readonly #ledger: CacheLedger;
  readonly #byArray = new WeakMap<readonly McpServerInput[], CachedSpec>();
  readonly #byKey = new Map<string, CachedSpec>();
  #sequence = 0;

  constructor({ ledger }: { ledger: CacheLedger }) {
    this.#ledger = ledger;
  }

  get size(): number {
    return this.#byKey.size;
  }

  specFor(mcpServers: readonly McpServerInput[] | undefined): PromptSpec {
    if (mcpServers !== undefined) {
      const known = this.#byArray.get(mcpServers);
      // A spec the ledger evicted is registered again below (an equal one, from its key).
      if (known !== undefined && this.#ledger.touch(known.ledgerKey)) return known.spec;
    }
    const key = mcpServers === undefined ? "" : canonicalJson(mcpServers);
    let cached = this.#byKey.get(key);
    if (cached === undefined || !this.#ledger.touch(cached.ledgerKey)) {
      const spec = createCursorPromptSpec(
        mcpServers === undefined ? {} : { mcpServers: [...mcpServers] },
      );
      this.#sequence += 1;
      const entry: CachedSpec = { spec, ledgerKey: `prompt-spec\u0000${this.#sequence}` };
      cached = entry;
      this.#byKey.set(key, entry);
      this.#ledger.set({
        key: entry.ledgerKey,
        kind: "prompt-spec",
        bytes: key.length + spec.instructions.length + jsonSize(spec.tools) + 512,
        evict: () => {
          if (this.#byKey.get(key) === entry) this.#byKey.delete(key);
        },
      });
    }
    if (mcpServers !== undefined) this.#byArray.set(mcpServers, cached);
    return cached.spec;
  }
}
