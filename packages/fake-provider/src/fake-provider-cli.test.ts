import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import {
  fakeProviderUsage,
  parseFakeProviderArgs,
  runFakeProviderCli,
} from "./fake-provider-cli.js";

describe("cursor-fake-provider command line", () => {
  it("parses every option", () => {
    expect(
      parseFakeProviderArgs([
        "--port",
        "8790",
        "--host",
        "0.0.0.0",
        "--ttl-ms",
        "1000",
        "--openai-min-tokens",
        "64",
        "--anthropic-min-tokens",
        "32",
        "--context-window",
        "5000",
        "--keep-alive-timeout-ms",
        "120000",
      ]),
    ).toEqual({
      port: 8790,
      host: "0.0.0.0",
      contextWindow: 5000,
      keepAliveTimeoutMs: 120_000,
      cache: { ttlMs: 1000, openaiMinTokens: 64, anthropicMinTokens: 32 },
    });
    expect(parseFakeProviderArgs(["--help"])).toBe("help");
    expect(() => parseFakeProviderArgs(["--port", "x"])).toThrow(
      /--port must be a non-negative integer/,
    );
    expect(() => parseFakeProviderArgs(["--bogus"])).toThrow();
  });

  it("prints its URL, serves requests and stops on SIGTERM", async () => {
    const lines: string[] = [];
    const signals = new EventEmitter();
    const { provider, stopped } = await runFakeProviderCli(["--port", "0"], {
      write: (line) => lines.push(line),
      onSignal: (signal, listener) => signals.once(signal, listener),
    });
    expect(lines[0]).toBe(`cursor-fake-provider listening on ${provider!.url}`);
    const health = await fetch(`${provider!.url}/healthz`);
    expect(await health.json()).toEqual({ ok: true });
    const queued = await fetch(`${provider!.url}/_fake/enqueue`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ replies: [{ type: "text", text: "hi" }] }),
    });
    expect(await queued.json()).toEqual({ queued: 1 });
    const rejected = await fetch(`${provider!.url}/_fake/enqueue`, {
      method: "POST",
      body: JSON.stringify({ replies: [{ type: "nope" }] }),
    });
    expect(rejected.status).toBe(400);
    signals.emit("SIGTERM");
    await stopped;
    expect(lines.at(-1)).toBe("cursor-fake-provider stopping (SIGTERM)");
    await expect(fetch(`${provider!.url}/healthz`)).rejects.toThrow();
  });

  it("prints usage for --help", async () => {
    const lines: string[] = [];
    const result = await runFakeProviderCli(["--help"], {
      write: (l) => lines.push(l),
      onSignal: () => {},
    });
    expect(result.provider).toBeUndefined();
    expect(lines).toEqual([fakeProviderUsage]);
  });
});
