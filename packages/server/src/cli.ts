#!/usr/bin/env node
import { ConfigError, loadConfig } from "./config.js";
import { runDemo } from "./demo/run-demo.js";
import { startGateway } from "./start-gateway.js";

const usage = `cursor-gateway <command>

Commands:
  serve   start the gateway (configuration from CURSOR_GATEWAY_* and provider key variables)
  demo    drive a scripted multi-turn agent session through a real gateway process against the
          simulated provider and print per-turn cached-token figures
  help    show this text`;

async function serve(): Promise<void> {
  const config = loadConfig(process.env);
  const gateway = await startGateway({
    config,
    logger: { level: process.env.CURSOR_GATEWAY_LOG_LEVEL ?? "info" },
  });
  const mode =
    config.tokens.length === 0
      ? "no auth (loopback only)"
      : `${config.tokens.length} tenant token(s)`;
  process.stdout.write(
    `cursor-gateway listening on ${gateway.url} — provider ${config.provider}${
      gateway.simulatedProviderURL === undefined
        ? ""
        : ` (simulated at ${gateway.simulatedProviderURL})`
    }, model ${config.model}, data ${config.dataDir}, ${mode}\n`,
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`cursor-gateway: ${signal}, finishing open runs\n`);
    void gateway.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`cursor-gateway: shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

async function main(argv: readonly string[]): Promise<void> {
  const [command] = argv;
  switch (command) {
    case "serve":
      return serve();
    case "demo":
      return runDemo({ argv: argv.slice(1), out: process.stdout });
    case undefined:
    case "help":
    case "--help":
      process.stdout.write(`${usage}\n`);
      return;
    default:
      process.stderr.write(`unknown command ${command}\n\n${usage}\n`);
      process.exitCode = 2;
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (ConfigError.isInstance(error)) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(
    `cursor-gateway: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
