import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadProxyConfig } from "../config.js";
import { loadOrCreateProxyCa, proxyCaFolderName } from "../proxy/proxy-ca.js";
import {
  SettingsFileError,
  applyIdeSettings,
  defaultSettingsPath,
  proxySettings,
  undoIdeSettings,
} from "./ide-settings.js";
import {
  allTrustPlatforms,
  currentTrustPlatform,
  formatCommand,
  trustPlan,
} from "./trust-commands.js";
import type { TrustPlatform, TrustStep } from "./trust-commands.js";

export const setupUsage = `cursor-gateway setup [--apply | --undo] [--trust] [--settings PATH]

Prints what Cursor needs to run its agent through cursor-gateway proxy: the IDE settings
(http.proxy, http.proxySupport, cursor.general.disableHttp2) and the commands that make this
machine trust the proxy's CA (macOS, Windows, Linux).
  --apply      write the settings into Cursor's settings.json, keeping a backup next to it; a file
               that is not valid JSON with comments is left untouched
  --undo       restore settings.json as it was before --apply (byte for byte when unchanged since)
  --trust      run this machine's trust commands (with --undo: the commands that remove the CA)
  --settings   the settings.json to change (default: Cursor's user settings on this platform)`;

/** Runs one command for `--trust`; the exit status, or undefined when it could not start. */
export type CommandRunner = (argv: readonly string[]) => number | undefined;

const inheritRunner: CommandRunner = (argv) => {
  const [command, ...args] = argv;
  const result = spawnSync(command!, args, { stdio: "inherit" });
  return result.error === undefined ? (result.status ?? undefined) : undefined;
};

export interface SetupCommandInput {
  readonly argv: readonly string[];
  readonly env: Record<string, string | undefined>;
  readonly io: { readonly out: NodeJS.WritableStream; readonly err: NodeJS.WritableStream };
  readonly platform?: TrustPlatform;
  readonly run?: CommandRunner;
}

function indent(lines: readonly string[], by = "  "): string {
  return lines.map((line) => `${by}${line}`).join("\n");
}

/** `cursor-gateway setup`: prints the set-up; `--apply`, `--undo`, `--trust` carry it out. */
export async function runSetupCommand(input: SetupCommandInput): Promise<number> {
  const { out, err } = input.io;
  let values;
  try {
    ({ values } = parseArgs({
      args: [...input.argv],
      options: {
        apply: { type: "boolean", default: false },
        undo: { type: "boolean", default: false },
        trust: { type: "boolean", default: false },
        settings: { type: "string" },
        help: { type: "boolean", default: false },
      },
    }));
  } catch (error) {
    err.write(`${(error as Error).message}\n\n${setupUsage}\n`);
    return 2;
  }
  if (values.help) {
    out.write(`${setupUsage}\n`);
    return 0;
  }
  if (values.apply && values.undo) {
    err.write(`--apply and --undo exclude each other\n\n${setupUsage}\n`);
    return 2;
  }
  const proxyConfig = loadProxyConfig(input.env);
  const proxyURL = `http://127.0.0.1:${proxyConfig.port}`;
  const settingsPath = values.settings ?? defaultSettingsPath({ env: input.env });
  const settings = proxySettings(proxyURL);
  const ca = await loadOrCreateProxyCa({ folder: join(proxyConfig.dataDir, proxyCaFolderName) });
  const platform = input.platform ?? currentTrustPlatform({ env: input.env });
  const run = input.run ?? inheritRunner;

  if (values.undo)
    return undo({ settingsPath, ca, platform, trust: values.trust, run, io: input.io });

  const plans = allTrustPlatforms.map((each) => trustPlan({ platform: each, ca }));
  out.write(
    [
      "cursor-gateway setup: run Cursor's agent on your own key through cursor-gateway proxy",
      "",
      `1. IDE settings, in ${settingsPath}:`,
      indent(
        Object.entries(settings).map(
          ([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)},`,
        ),
        "     ",
      ),
      "   write them with: cursor-gateway setup --apply   (keeps a backup; undo: cursor-gateway setup --undo)",
      "",
      `2. Trust the proxy's CA ${ca.certPath}`,
      `   (${ca.commonName}, SHA-256 ${ca.fingerprint256}), created once for this data folder:`,
      ...plans.flatMap((plan) => [
        `   ${plan.title}${plan.platform === platform ? " (this machine)" : ""}:`,
        indent(
          plan.install.map((step) => `${formatCommand(step.argv)}    # ${step.what}`),
          "     ",
        ),
      ]),
      "   run this machine's with: cursor-gateway setup --trust",
      "",
      "3. Start the gateway and the proxy: cursor-gateway proxy   (then restart Cursor)",
      "4. Check the chain end to end:      cursor-gateway doctor",
      "",
      "Turn it off: stop cursor-gateway proxy and run cursor-gateway setup --undo (add --trust to remove the CA too).",
      "",
    ].join("\n"),
  );
  let status = 0;
  if (values.apply) {
    try {
      const applied = applyIdeSettings({ settingsPath, settings });
      out.write(
        applied.outcome === "already-applied"
          ? `settings: ${settingsPath} already has these settings\n`
          : `settings: wrote ${settingsPath}${applied.backupPath === undefined ? " (a new file; --undo removes it)" : `, the original is kept in ${applied.backupPath}`}\n`,
      );
    } catch (error) {
      if (!SettingsFileError.isInstance(error)) throw error;
      err.write(`settings: ${error.message}\n`);
      status = 1;
    }
  }
  if (values.trust) {
    const plan = trustPlan({ platform, ca });
    status = Math.max(status, runSteps({ steps: plan.install, run, io: input.io }));
  }
  return status;
}

function undo({
  settingsPath,
  ca,
  platform,
  trust,
  run,
  io,
}: {
  settingsPath: string;
  ca: Awaited<ReturnType<typeof loadOrCreateProxyCa>>;
  platform: TrustPlatform;
  trust: boolean;
  run: CommandRunner;
  io: SetupCommandInput["io"];
}): number {
  let status = 0;
  try {
    const undone = undoIdeSettings({ settingsPath });
    const messages: Record<typeof undone.outcome, string> = {
      restored: `settings: ${settingsPath} is again exactly as it was before --apply`,
      removed: `settings: removed ${settingsPath}, which --apply had created`,
      "keys-reverted": `settings: ${settingsPath} changed since --apply, so only http.proxy, http.proxySupport and cursor.general.disableHttp2 were put back as they were${undone.backupPath === undefined ? "" : ` (the original is still in ${undone.backupPath})`}`,
      "nothing-to-undo": `settings: nothing to undo in ${settingsPath} (setup --apply was not run on it)`,
    };
    io.out.write(`${messages[undone.outcome]}\n`);
  } catch (error) {
    if (!SettingsFileError.isInstance(error)) throw error;
    io.err.write(`settings: ${error.message}\n`);
    status = 1;
  }
  const plan = trustPlan({ platform, ca });
  if (trust) return Math.max(status, runSteps({ steps: plan.remove, run, io }));
  io.out.write(
    [
      `To stop trusting the proxy CA on ${plan.title} (or run: cursor-gateway setup --undo --trust):`,
      indent(
        plan.remove.map((step) => `${formatCommand(step.argv)}    # ${step.what}`),
        "  ",
      ),
      "",
    ].join("\n"),
  );
  return status;
}

function runSteps({
  steps,
  run,
  io,
}: {
  steps: readonly TrustStep[];
  run: CommandRunner;
  io: SetupCommandInput["io"];
}): number {
  let status = 0;
  for (const step of steps) {
    const command = formatCommand(step.argv);
    if (!step.runnable) {
      io.out.write(`trust: do this yourself: ${command}    # ${step.what}\n`);
      continue;
    }
    io.out.write(`trust: ${command}\n`);
    const exit = run(step.argv);
    if (exit !== 0) {
      status = 1;
      io.err.write(
        `trust: ${command} ${exit === undefined ? "could not start (is the tool installed?)" : `failed (exit ${exit})`}; ${step.what} by hand\n`,
      );
    }
  }
  return status;
}
