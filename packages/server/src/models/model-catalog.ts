import type { ProviderAdapter } from "@cursor/run";
import { UnknownModelError } from "../conversation-errors.js";
import { createModelAdapter } from "./create-model-adapter.js";
import type { ModelConfig, ProviderName } from "./model-config.js";

/** What a model picker shows of an entry. */
export interface ModelListing {
  readonly id: string;
  readonly displayName: string;
  readonly provider: ProviderName;
}

/** The catalog entry a request runs on, and the model id sent to its provider. */
export interface ModelSelection {
  readonly entry: ModelConfig;
  /** `entry.model`, or the request's own `model` when it is not a catalog id (JSON contract). */
  readonly providerModel: string;
}

/**
 * How a request's `model` that is not a catalog id is read: `provider-model` (the JSON contract,
 * backward compatible) sends it as the provider model id to the default entry's provider;
 * `reject` (a front door that only offers catalog ids, the Cursor picker) refuses it.
 */
export type UnlistedModel = "provider-model" | "reject";

/** The gateway's in-process fake provider (for `simulated` entries). */
export interface SimulatedProvider {
  /** Where it listens (its scripting and inspection endpoints). */
  readonly url: string;
  /** Its OpenAI-compatible API, what `simulated` entries call. */
  readonly openaiBaseURL: string;
  /**
   * What every call to it needs (its API and its control routes, which show every tenant's
   * request bodies): random per start, so no other local process can use or read it.
   */
  readonly accessToken: string;
  close(): Promise<void>;
}

/**
 * The configured BYOK models, the default first. Each entry's provider adapter is created once,
 * on first use, and reused; `simulated` entries share one in-process fake provider.
 */
export class ModelCatalog {
  readonly #entries: readonly [ModelConfig, ...ModelConfig[]];
  readonly #byId: ReadonlyMap<string, ModelConfig>;
  readonly #adapters = new Map<string, Promise<ProviderAdapter>>();
  readonly #startSimulated: () => Promise<SimulatedProvider>;
  #simulated: Promise<SimulatedProvider> | undefined;

  constructor({
    models,
    simulated,
  }: {
    models: readonly [ModelConfig, ...ModelConfig[]];
    /** Starts the fake provider; called at most once, when a `simulated` entry needs it. */
    simulated: () => Promise<SimulatedProvider>;
  }) {
    const byId = new Map<string, ModelConfig>();
    for (const entry of models) {
      if (byId.has(entry.id)) throw new Error(`model id ${entry.id} is configured twice`);
      byId.set(entry.id, entry);
    }
    this.#entries = models;
    this.#byId = byId;
    this.#startSimulated = simulated;
  }

  /** The entries as a picker lists them, the default first. */
  list(): readonly ModelListing[] {
    return this.#entries.map(({ id, displayName, provider }) => ({ id, displayName, provider }));
  }

  get default(): ModelConfig {
    return this.#entries[0];
  }

  /** Every configured key (to keep them out of errors and logs). */
  get secrets(): readonly string[] {
    return this.#entries.flatMap((entry) => (entry.apiKey === undefined ? [] : [entry.apiKey]));
  }

  /**
   * The entry a request's `model` picks: absent → the default; a catalog id → that entry;
   * anything else per `unlisted`.
   */
  select({
    model,
    unlisted = "provider-model",
  }: {
    model: string | undefined;
    unlisted?: UnlistedModel;
  }): ModelSelection {
    if (model === undefined) return { entry: this.default, providerModel: this.default.model };
    const entry = this.#byId.get(model);
    if (entry !== undefined) return { entry, providerModel: entry.model };
    if (unlisted === "reject") throw new UnknownModelError({ modelId: model });
    return { entry: this.default, providerModel: model };
  }

  /** The entry's provider adapter, created on first use and reused. */
  adapter(entry: ModelConfig): Promise<ProviderAdapter> {
    let adapter = this.#adapters.get(entry.id);
    if (adapter === undefined) {
      adapter = createModelAdapter({
        entry,
        simulated: () => this.simulated(),
      });
      // A failed creation is not cached: the next request tries again.
      adapter.catch(() => this.#adapters.delete(entry.id));
      this.#adapters.set(entry.id, adapter);
    }
    return adapter;
  }

  /** True when an entry runs on the in-process fake provider. */
  get hasSimulated(): boolean {
    return this.#entries.some((entry) => entry.provider === "simulated");
  }

  /** The in-process fake provider (started on first use, once). */
  simulated(): Promise<SimulatedProvider> {
    this.#simulated ??= this.#startSimulated();
    return this.#simulated;
  }

  /** Stops the fake provider, if one was started. */
  async close(): Promise<void> {
    const simulated = this.#simulated;
    this.#simulated = undefined;
    if (simulated !== undefined) await (await simulated).close();
  }
}
