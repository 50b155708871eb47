import type { WireLogger, WireModel, WirePorts } from "@cursor/wire";
import type { ConversationService } from "../conversation-service.js";
import type { Tenant } from "../http/auth.js";
import type { ModelCatalog } from "../models/model-catalog.js";

/**
 * The wire's ports over the conversation service, for the wire's one tenant. A Cursor turn goes
 * through exactly the service `POST /v1/runs` uses (request validation, head loading, turn
 * preparation, the model loop, the store): nothing here plans, dedups or appends. Only catalog
 * ids are models on this wire (`unlistedModel: "reject"`): the IDE's picker offers nothing else.
 * `hydrate`'s own errors (the wire's `ConnectError`s for a refused conversation state) pass
 * through the service unchanged.
 */
export function createGatewayWirePorts({
  service,
  tenant,
  models,
  contextWindow,
  checkpointSecret,
  logger,
}: {
  service: ConversationService;
  tenant: Tenant;
  models: ModelCatalog;
  /** The gateway's context window (the IDE's context gauge). */
  contextWindow: number;
  checkpointSecret: string;
  logger: WireLogger;
}): WirePorts {
  const listed: readonly WireModel[] = models.list().map((entry) => ({
    id: entry.id,
    displayName: entry.displayName,
    provider: entry.provider,
    contextWindowTokens: contextWindow,
  }));
  return {
    prepareRun: ({ body, hydrate, signal }) =>
      service.prepareRun({
        tenant,
        body,
        unlistedModel: "reject",
        ...(hydrate === undefined ? {} : { hydrate }),
        ...(signal === undefined ? {} : { signal }),
      }),
    cancel: (conversationId) => service.cancel({ tenant, conversationId }),
    head: (conversationId) => service.head({ tenant, conversationId }),
    models: () => listed,
    checkpointSecret,
    logger,
  };
}
