#!/usr/bin/env node
import { ConfigError, loadConfig } from "./config.js";
import { watchLauncher } from "./launcher-watch.js";
import { createGatewayLogger } from "./logging/gateway-logger.js";
import { createGatewayRedactor } from "./redaction/gateway-secrets.js";
import { startGateway } from "./start-gateway.js";
import { StartupError } from "./startup-error.js";
import { databaseLabel } from "./store/database-url.js";
import { StoreError } from "./store/store-error.js";

const usage = `cursor-gateway <command>

Commands:
  serve   start the gateway (configuration from CURSOR_GATEWAY_* and provider key variables)
  demo    drive a scripted multi-turn agent session through a real gateway process against the
          simulated provider and print per-turn cached-token figures
  diff    compare two provider request bodies as the prefix cache does: shared prefix, first
          diverging path, a diff of the diverging item, likely cause (diff --help)
  report  a conversation's usage records on a running gateway: provider-reported tokens,
          timings, costs and every prefix break explained (report --conversation ID [--url URL]
          [--token T])
  proxy   start the gateway and the local HTTPS proxy that Cursor's agent runs through
          (BYOK runs on your key, everything else to Cursor unchanged)
  setup   print (--apply: write) the Cursor settings and the CA trust commands (setup --help)
  doctor  check the chain from Cursor to your provider and say what to fix (doctor --help)
  help    show this text`;

async function serve(): Promise<void> {
  const config = loadConfig(process.env);
  // One redaction path: the logger's lines and everything the gateway sends.
  const redactor = createGatewayRedactor(config);
  const gateway = await startGateway({
    config,
    redactor,
    logger: createGatewayLogger({
      level: config.logLevel,
      ...(config.logFormat === undefined ? {} : { format: config.logFormat }),
      redactor,
    }),
  });
  const mode =
    config.tokens.length === 0
      ? "no auth (loopback only)"
      : `${config.tokens.length} tenant token(s)`;
  const [first, ...others] = config.models;
  // The handlers first, the ready line last: whoever reads it may stop the process at once.
  stopOnSignals({ name: "cursor-gateway", close: () => gateway.close() });
  process.stdout.write(
    `cursor-gateway listening on ${gateway.url} — provider ${first.provider}, model ${first.model}${
      others.length === 0
        ? ""
        : ` (default of ${config.models.length}: ${config.models.map((m) => m.id).join(", ")})`
    }, data ${config.dataDir}${
      config.databaseURL === undefined ? "" : `, store ${databaseLabel(config.databaseURL)}`
    }, ${mode}\n`,
  );
}

async function proxy(): Promise<void> {
  const { runProxyCommand } = await import("./proxy/proxy-command.js");
  // The handlers first: runProxyCommand writes the ready line, and whoever reads it may stop
  // the process at once (a stop during start-up waits for it, then closes what started).
  const running = runProxyCommand({ env: process.env, out: process.stdout });
  stopOnSignals({ name: "cursor-gateway proxy", close: async () => (await running).close() });
  await running;
}

/**
 * Stops cleanly (open runs end, the store closes, the port is freed) on SIGTERM, SIGINT and
 * SIGHUP, and when the command that started the gateway is gone (see `watchLauncher`).
 */
function stopOnSignals({ name, close }: { name: string; close: () => Promise<void> }): void {
  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    writeQuietly(`${name}: ${why}, finishing open runs\n`);
    void close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`${name}: shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.on(signal, () => stop(signal));
  }
  watchLauncher({ onGone: (pid) => stop(`the command that started it (pid ${pid}) exited`) });
}

/** A terminal or pipe that went away must not turn a clean shutdown into a crash. */
function writeQuietly(text: string): void {
  try {
    process.stdout.write(text);
  } catch {
    // stdout is gone; nothing to tell.
  }
}
process.stdout.on("error", () => undefined);

async function main(argv: readonly string[]): Promise<void> {
  const [command] = argv;
  switch (command) {
    case "serve":
      return serve();
    // Each command loads its own modules: `serve` does not pay for the diagnostics' tokenizer.
    case "demo": {
      const { runDemo } = await import("./demo/run-demo.js");
      return runDemo({ argv: argv.slice(1), out: process.stdout });
    }
    case "proxy":
      return proxy();
    case "setup":
    case "doctor": {
      const run =
        command === "setup"
          ? (await import("./setup/setup-command.js")).runSetupCommand
          : (await import("./setup/doctor-command.js")).runDoctorCommand;
      process.exitCode = await run({
        argv: argv.slice(1),
        env: process.env,
        io: { out: process.stdout, err: process.stderr },
      });
      return;
    }
    case "diff":
    case "report": {
      const run =
        command === "diff"
          ? (await import("./diagnostics/diff-command.js")).runDiffCommand
          : (await import("./diagnostics/report-command.js")).runReportCommand;
      process.exitCode = await run({
        argv: argv.slice(1),
        io: { out: process.stdout, err: process.stderr },
      });
      return;
    }
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

// ProxyCaError's marker (proxy/proxy-ca.ts), checked without loading the proxy's modules.
const isProxyCaError = (error: unknown): error is Error =>
  typeof error === "object" && error !== null && Symbol.for("cursor.error.proxy-ca") in error;

main(process.argv.slice(2)).catch((error: unknown) => {
  // A mistake in the configuration or on this machine: the message says what to change.
  if (ConfigError.isInstance(error)) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  // A listen address or data folder this machine cannot use: the message names what to change.
  if (StartupError.isInstance(error) || isProxyCaError(error)) {
    process.stderr.write(`cursor-gateway: ${error.message}\n`);
    process.exit(2);
  }
  // The store cannot be used (unreachable, newer than this gateway, damaged, another program's):
  // the message says what to do.
  if (StoreError.isInstance(error)) {
    process.stderr.write(`cursor-gateway: ${error.message}\n`);
    process.exit(1);
  }
  // Anything else is a bug: the stack helps whoever reports it.
  process.stderr.write(
    `cursor-gateway: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
