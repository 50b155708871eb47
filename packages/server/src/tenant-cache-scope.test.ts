import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { tenantCacheScope } from "./tenant-cache-scope.js";

describe("tenantCacheScope", () => {
  it("is 32 hex digits of an HMAC of the tenant's id under the checkpoint secret", () => {
    const scope = tenantCacheScope({ checkpointSecret: "s".repeat(32), tenantId: "local" });
    expect(scope).toBe(
      createHmac("sha256", "s".repeat(32))
        .update("cursor.gateway.cache-scope\nlocal")
        .digest("hex")
        .slice(0, 32),
    );
  });

  it("differs per tenant and per secret, and holds neither", () => {
    const a = tenantCacheScope({ checkpointSecret: "secret-one-0123456789", tenantId: "team-a" });
    const b = tenantCacheScope({ checkpointSecret: "secret-one-0123456789", tenantId: "team-b" });
    const c = tenantCacheScope({ checkpointSecret: "secret-two-0123456789", tenantId: "team-a" });
    expect(new Set([a, b, c]).size).toBe(3);
    for (const scope of [a, b, c]) {
      expect(scope).toMatch(/^[0-9a-f]{32}$/);
      expect(scope).not.toContain("team");
    }
  });
});
