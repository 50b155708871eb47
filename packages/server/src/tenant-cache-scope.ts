import { createHmac } from "node:crypto";

/**
 * A tenant's prompt-cache scope: a keyed digest of its id under the deployment's checkpoint
 * secret, so providers' cache keys differ per tenant while neither the tenant's token nor its id
 * is in them, and every process of a deployment (one secret) derives the same scope. Exported so
 * a tool that rebuilds a provider request from stored history (the bench's prefix part) sends the
 * very `prompt_cache_key` the gateway sent.
 */
export function tenantCacheScope({
  checkpointSecret,
  tenantId,
}: {
  checkpointSecret: string;
  tenantId: string;
}): string {
  return createHmac("sha256", checkpointSecret)
    .update(`cursor.gateway.cache-scope\n${tenantId}`)
    .digest("hex")
    .slice(0, 32);
}
