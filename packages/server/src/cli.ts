#!/usr/bin/env node
import { ConfigError, loadConfig } from "./config.js";
import { runDemo } from "./demo/run-demo.js";
import { runDiffCommand } from "./diagnostics/diff-command.js";
import { runReportCommand } from "./diagnostics/report-command.js";
import { runProxyCommand } from "./proxy/proxy-command.js";
import { runDoctorCommand } from "./setup/doctor-command.js";
import { runSetupCommand } from "./setup/setup-command.js";
import { startGateway } from "./start-gateway.js";

const usage = `cursor-gateway <command>

Commands:
  serve   start the gateway (configuration from CURSOR_GATEWAY_* and provider key variables)
  demo    drive a scripted multi-turn agent session through a real gateway process against the
          simulated provider and print per-turn cached-token figures
  diff    compare two provider request bodies as the prefix cache does: shared prefix, first
          diverging path, a diff of the diverging item, likely cause (diff --help)
  report  per-call cached ratio and every prefix divergence of a conversation on a running
          gateway (report --conversation ID [--url URL] [--token T])
  proxy   start the gateway and the local HTTPS proxy that Cursor's agent runs through
          (BYOK runs on your key, everything else to Cursor unchanged)
  setup   print (--apply: write) the Cursor settings and the CA trust commands (setup --help)
  doctor  check the chain from Cursor to your provider and say what to fix (doctor --help)
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
  const [first, ...others] = config.models;
  process.stdout.write(
    `cursor-gateway listening on ${gateway.url} — provider ${first.provider}, model ${first.model}${
      others.length === 0
        ? ""
        : ` (default of ${config.models.length}: ${config.models.map((m) => m.id).join(", ")})`
    }, data ${config.dataDir}, ${mode}\n`,
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

async function proxy(): Promise<void> {
  const running = await runProxyCommand({ env: process.env, out: process.stdout });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`cursor-gateway proxy: ${signal}, finishing open runs\n`);
    void running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`cursor-gateway proxy: shutdown failed: ${String(error)}\n`);
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
    case "proxy":
      return proxy();
    case "setup":
    case "doctor": {
      const run = command === "setup" ? runSetupCommand : runDoctorCommand;
      process.exitCode = await run({
        argv: argv.slice(1),
        env: process.env,
        io: { out: process.stdout, err: process.stderr },
      });
      return;
    }
    case "diff":
    case "report": {
      const run = command === "diff" ? runDiffCommand : runReportCommand;
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
