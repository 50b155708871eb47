import { parseArgs } from "node:util";
import { startFakeProvider } from "./fake-provider.js";
import type { FakeProvider, FakeProviderOptions } from "./fake-provider.js";
import { scriptedAgentReply } from "./scripted-agent.js";

export const fakeProviderUsage = `Usage: cursor-fake-provider [options]

Runs the @cursor/fake-provider fake provider (OpenAI Responses, Chat Completions, Anthropic Messages)
with its prefix-cache simulation until SIGINT or SIGTERM.

Options:
  --port N                   port to listen on (default 0: a free port)
  --host H                   address to bind (default 127.0.0.1)
  --ttl-ms N                 idle lifetime of a cache entry (default 300000)
  --openai-min-tokens N      OpenAI cache threshold (default 1024)
  --anthropic-min-tokens N   Anthropic minimum cacheable prefix (default 1024)
  --context-window N         answer context-overflow above N input tokens
  --keep-alive-timeout-ms N  how long an idle connection stays open (default 60000)
  --agent                    answer with the scripted agent when no reply is queued (default "OK")
  --help                     print this help

Control endpoints: GET /_fake/requests, GET /_fake/stats, POST /_fake/enqueue {"replies": [...]},
POST /_fake/reset, GET /healthz.`;

/** Parses the command line into server options; throws a usage error message on bad input. */
export function parseFakeProviderArgs(argv: readonly string[]): FakeProviderOptions | "help" {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "ttl-ms": { type: "string" },
      "openai-min-tokens": { type: "string" },
      "anthropic-min-tokens": { type: "string" },
      "context-window": { type: "string" },
      "keep-alive-timeout-ms": { type: "string" },
      agent: { type: "boolean" },
      help: { type: "boolean" },
    },
  });
  if (values.help === true) return "help";
  const integer = (name: string, value: string | undefined): number | undefined => {
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 0) {
      throw new Error(`--${name} must be a non-negative integer, got ${JSON.stringify(value)}`);
    }
    return parsed;
  };
  const port = integer("port", values.port);
  if (port !== undefined && port > 65535)
    throw new Error(`--port must be at most 65535, got ${port}`);
  const ttlMs = integer("ttl-ms", values["ttl-ms"]);
  const openaiMinTokens = integer("openai-min-tokens", values["openai-min-tokens"]);
  const anthropicMinTokens = integer("anthropic-min-tokens", values["anthropic-min-tokens"]);
  const contextWindow = integer("context-window", values["context-window"]);
  const keepAliveTimeoutMs = integer("keep-alive-timeout-ms", values["keep-alive-timeout-ms"]);
  return {
    ...(port === undefined ? {} : { port }),
    ...(values.host === undefined ? {} : { host: values.host }),
    ...(contextWindow === undefined ? {} : { contextWindow }),
    ...(keepAliveTimeoutMs === undefined ? {} : { keepAliveTimeoutMs }),
    ...(values.agent === true ? { defaultReply: scriptedAgentReply } : {}),
    cache: {
      ...(ttlMs === undefined ? {} : { ttlMs }),
      ...(openaiMinTokens === undefined ? {} : { openaiMinTokens }),
      ...(anthropicMinTokens === undefined ? {} : { anthropicMinTokens }),
    },
  };
}

export interface FakeProviderCliIo {
  readonly write: (line: string) => void;
  /** Registers a one-shot listener for SIGINT / SIGTERM (the process in the real bin). */
  readonly onSignal: (signal: "SIGINT" | "SIGTERM", listener: () => void) => void;
}

/**
 * Runs the fake provider as a process: prints its URLs, stops on SIGINT / SIGTERM. Resolves with
 * the running provider and a promise that settles once it has stopped.
 */
export async function runFakeProviderCli(
  argv: readonly string[],
  io: FakeProviderCliIo,
): Promise<{ provider: FakeProvider | undefined; stopped: Promise<void> }> {
  const options = parseFakeProviderArgs(argv);
  if (options === "help") {
    io.write(fakeProviderUsage);
    return { provider: undefined, stopped: Promise.resolve() };
  }
  const provider = await startFakeProvider(options);
  io.write(`cursor-fake-provider listening on ${provider.url}`);
  io.write(`  OpenAI baseURL:    ${provider.openaiBaseURL}`);
  io.write(`  Anthropic baseURL: ${provider.anthropicBaseURL}`);
  const stopped = new Promise<void>((resolve, reject) => {
    const stop = (signal: string) => () => {
      io.write(`cursor-fake-provider stopping (${signal})`);
      provider.close().then(resolve, reject);
    };
    io.onSignal("SIGINT", stop("SIGINT"));
    io.onSignal("SIGTERM", stop("SIGTERM"));
  });
  return { provider, stopped };
}
