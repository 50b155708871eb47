import { createHash, timingSafeEqual } from "node:crypto";

export interface Tenant {
  /** Stable id derived from the token; never the token itself (it is a secret). */
  readonly id: string;
}

/** The single tenant of a gateway without tokens (allowed on loopback only). */
export const localTenant: Tenant = { id: "local" };

const digest = (value: string) => createHash("sha256").update(value).digest();

/**
 * Maps `Authorization: Bearer <token>` to a tenant. Compares digests in constant time so the
 * comparison leaks nothing about configured tokens.
 */
export function createAuthenticator(tokens: readonly string[]) {
  const known = tokens.map((token) => ({
    digest: digest(token),
    tenant: { id: `t-${digest(token).toString("hex").slice(0, 16)}` },
  }));
  return function authenticate(authorization: string | undefined): Tenant | undefined {
    if (known.length === 0) return localTenant;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    if (match === null) return undefined;
    const presented = digest(match[1]!);
    return known.find((entry) => timingSafeEqual(entry.digest, presented))?.tenant;
  };
}
