import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

const secret = "a-checkpoint-secret-of-32-characters!";

function configError(environment: Record<string, string>): ConfigError {
  try {
    loadConfig(environment);
  } catch (error) {
    if (ConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("the configuration was accepted");
}

describe("loadConfig: the store", () => {
  it("uses SQLite in the data folder unless a database URL is set", () => {
    const config = loadConfig({});
    expect(config.databaseURL).toBeUndefined();
    expect(config.runLeaseMs).toBeUndefined();
  });

  it("takes a PostgreSQL URL and a run lease", () => {
    const url = "postgresql://gateway:pw-0123456789@db:5432/gateway";
    const config = loadConfig({
      CURSOR_GATEWAY_DATABASE_URL: ` ${url} `,
      CURSOR_GATEWAY_CHECKPOINT_SECRET: secret,
      CURSOR_GATEWAY_RUN_LEASE_SECONDS: "12",
    });
    expect(config.databaseURL).toBe(url);
    expect(config.runLeaseMs).toBe(12_000);
  });

  it("refuses a bad URL without repeating it, and a shared database without a shared secret", () => {
    const bad = configError({
      CURSOR_GATEWAY_DATABASE_URL: "mysql://gateway:pw-0123456789@db/gateway",
      CURSOR_GATEWAY_CHECKPOINT_SECRET: secret,
    });
    expect(bad.issues).toEqual([
      "CURSOR_GATEWAY_DATABASE_URL: a postgresql:// (or postgres://) URL, not mysql://",
    ]);
    expect(bad.message).not.toContain("pw-0123456789");
    const noSecret = configError({
      CURSOR_GATEWAY_DATABASE_URL: "postgresql://gateway:pw-0123456789@db/gateway",
    });
    expect(noSecret.issues).toEqual([
      "CURSOR_GATEWAY_CHECKPOINT_SECRET must be set with CURSOR_GATEWAY_DATABASE_URL: every process of the deployment signs and checks client checkpoints with the same secret",
    ]);
    expect(noSecret.message).not.toContain("pw-0123456789");
  });

  it("refuses a run lease outside 3..3600 seconds", () => {
    for (const value of ["2", "3601", "1.5", "soon"]) {
      expect(configError({ CURSOR_GATEWAY_RUN_LEASE_SECONDS: value }).issues[0]).toMatch(
        /^CURSOR_GATEWAY_RUN_LEASE_SECONDS: /,
      );
    }
  });
});
