#!/usr/bin/env node
import { runFakeProviderCli } from "./fake-provider-cli.js";

// The `cursor-fake-provider` bin: a thin shell around runFakeProviderCli.
try {
  const { stopped } = await runFakeProviderCli(process.argv.slice(2), {
    write: (line) => process.stdout.write(`${line}\n`),
    onSignal: (signal, listener) => process.once(signal, listener),
  });
  await stopped;
} catch (error) {
  process.stderr.write(
    `cursor-fake-provider: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = 1;
}
