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

function issuesOf(environment: Record<string, string>): readonly string[] {
  try {
    loadConfig(environment);
  } catch (error) {
    if (ConfigError.isInstance(error)) return error.issues;
    throw error;
  }
  throw new Error("the configuration was accepted");
}

describe("loadConfig", () => {
  it("reads the defaults: simulated provider, loopback, no tokens, info logs", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: "127.0.0.1",
      port: 8787,
      dataDir: "./.cursor-gateway",
      tokens: [],
      contextWindow: 200_000,
      logLevel: "info",
    });
    expect(config.logFormat).toBeUndefined();
    expect(config.models.map((model) => model.provider)).toEqual(["simulated"]);
  });

  it("splits CURSOR_GATEWAY_TOKENS on commas only and trims each token", () => {
    const config = loadConfig({
      CURSOR_GATEWAY_TOKENS: "  first-token-0123456789,second-token-0123456789  ",
    });
    expect(config.tokens).toEqual(["first-token-0123456789", "second-token-0123456789"]);
  });

  it("refuses a space-separated token list, empty entries, short and repeated tokens", () => {
    const issues = issuesOf({
      CURSOR_GATEWAY_TOKENS:
        "first-token-0123456789 second-token-0123456789,short,,third-token-0123456789,third-token-0123456789",
    });
    expect(issues).toEqual([
      "CURSOR_GATEWAY_TOKENS: token 1 of 5 contains whitespace; separate tokens with commas, not spaces",
      "CURSOR_GATEWAY_TOKENS: token 2 of 5 is shorter than 16 characters",
      "CURSOR_GATEWAY_TOKENS: token 3 of 5 is empty (separate tokens with commas, nothing in between)",
      "CURSOR_GATEWAY_TOKENS: token 5 repeats token 4; each token is one tenant",
    ]);
    expect(issues.join("\n")).not.toContain("token-0123456789");
  });

  it("checks every variable on its own and reports all problems in one error", () => {
    expect(
      issuesOf({
        CURSOR_GATEWAY_PORT: "99999",
        CURSOR_GATEWAY_PROVIDER: "gemini",
        CURSOR_GATEWAY_LOG_LEVEL: "chatty",
        OPENAI_BASE_URL: "ftp://example.com",
        OPENAI_API_KEY: "sk-secret-key-value",
        CURSOR_GATEWAY_HOST: "0.0.0.0",
      }),
    ).toEqual([
      'CURSOR_GATEWAY_PORT: a port number up to 65535 (got "99999")',
      expect.stringMatching(/^CURSOR_GATEWAY_PROVIDER: .* \(got "gemini"\)$/),
      expect.stringMatching(/^OPENAI_BASE_URL: .* \(got "ftp:\/\/example\.com"\)$/),
      'CURSOR_GATEWAY_LOG_LEVEL: one of fatal, error, warn, info, debug, trace, silent (got "chatty")',
      "CURSOR_GATEWAY_TOKENS must be set to listen on 0.0.0.0: without tokens the gateway only listens on loopback",
    ]);
  });

  it("never quotes a secret's value", () => {
    const issues = issuesOf({ CURSOR_GATEWAY_CHECKPOINT_SECRET: "too-short-secret" });
    expect(issues).toEqual(["CURSOR_GATEWAY_CHECKPOINT_SECRET: at least 32 characters"]);
  });

  it("reads the log level and format", () => {
    expect(
      loadConfig({ CURSOR_GATEWAY_LOG_LEVEL: " debug ", CURSOR_GATEWAY_LOG_FORMAT: "json" }),
    ).toMatchObject({ logLevel: "debug", logFormat: "json" });
  });
});

describe("loadConfig: the cache budget", () => {
  it("leaves the budget to the service's default unless CURSOR_GATEWAY_CACHE_BYTES is set", () => {
    expect(loadConfig({}).cacheBytes).toBeUndefined();
  });

  it("takes bytes, or a binary unit, and 0 (keep nothing between requests)", () => {
    const cases: [string, number][] = [
      ["268435456", 268_435_456],
      [" 256MiB ", 256 * 1024 ** 2],
      ["1GiB", 1024 ** 3],
      ["512 KiB", 512 * 1024],
      ["4096B", 4096],
      ["0", 0],
    ];
    for (const [value, bytes] of cases) {
      expect(loadConfig({ CURSOR_GATEWAY_CACHE_BYTES: value }).cacheBytes).toBe(bytes);
    }
  });

  it("refuses anything else with what it expects and the value it got", () => {
    for (const value of ["256MB", "-1", "1.5GiB", "lots", "2048GiB", "256 mib"]) {
      const issues = configError({ CURSOR_GATEWAY_CACHE_BYTES: value }).issues;
      expect(issues).toHaveLength(1);
      expect(issues[0]).toMatch(/^CURSOR_GATEWAY_CACHE_BYTES: (a size in bytes|at most 1 TiB)/);
      expect(issues[0]).toContain(JSON.stringify(value.trim()));
    }
    expect(configError({ CURSOR_GATEWAY_CACHE_BYTES: "2048GiB" }).issues[0]).toBe(
      'CURSOR_GATEWAY_CACHE_BYTES: at most 1 TiB (1024GiB) (got "2048GiB")',
    );
  });
});
