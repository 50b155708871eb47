import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";

/**
 * The commands that make this machine trust (or stop trusting) the proxy CA: the system store,
 * which Cursor's Chromium side uses (on Linux: its NSS database), and NODE_EXTRA_CA_CERTS, which
 * Cursor's Node side (the extension host) uses. `setup` prints them; `setup --trust` runs the
 * current platform's.
 */

export type TrustPlatform = "darwin" | "win32" | "linux-debian" | "linux-fedora";

export interface TrustStep {
  /** What the step does, for the user. */
  readonly what: string;
  readonly argv: readonly string[];
  /** False: printed only (it edits something `--trust` should not, e.g. a shell profile). */
  readonly runnable: boolean;
}

export interface TrustPlan {
  readonly platform: TrustPlatform;
  readonly title: string;
  readonly install: readonly TrustStep[];
  readonly remove: readonly TrustStep[];
}

export interface TrustCa {
  readonly certPath: string;
  readonly commonName: string;
  readonly serialNumber: string;
}

const linuxFileName = "cursor-gateway-proxy-ca.crt";

function quote(argument: string): string {
  return /^[\w@%+=:,./-]+$/.test(argument)
    ? argument
    : `"${argument.replace(/(["\\$`])/g, "\\$1")}"`;
}

export function formatCommand(argv: readonly string[]): string {
  return argv.map(quote).join(" ");
}

export function trustPlan({
  platform,
  ca,
  home = homedir(),
}: {
  platform: TrustPlatform;
  ca: TrustCa;
  home?: string;
}): TrustPlan {
  const nss = join(home, ".pki", "nssdb");
  switch (platform) {
    case "darwin": {
      const keychain = join(home, "Library", "Keychains", "login.keychain-db");
      return {
        platform,
        title: "macOS",
        install: [
          {
            what: "trust the CA for TLS in your login keychain (asks for your password)",
            argv: [
              "security",
              "add-trusted-cert",
              "-r",
              "trustRoot",
              "-p",
              "ssl",
              "-k",
              keychain,
              ca.certPath,
            ],
            runnable: true,
          },
          {
            what: "let apps started from the Dock (Cursor's Node side) read it; repeat after a reboot",
            argv: ["launchctl", "setenv", "NODE_EXTRA_CA_CERTS", ca.certPath],
            runnable: true,
          },
        ],
        remove: [
          {
            what: "remove the CA from your login keychain",
            argv: ["security", "delete-certificate", "-c", ca.commonName, keychain],
            runnable: true,
          },
          {
            what: "unset NODE_EXTRA_CA_CERTS",
            argv: ["launchctl", "unsetenv", "NODE_EXTRA_CA_CERTS"],
            runnable: true,
          },
        ],
      };
    }
    case "win32":
      return {
        platform,
        title: "Windows",
        install: [
          {
            what: "trust the CA in your user's root store (Windows asks to confirm)",
            argv: ["certutil", "-user", "-addstore", "Root", ca.certPath],
            runnable: true,
          },
          {
            what: "set NODE_EXTRA_CA_CERTS for your user (applies to apps started afterwards)",
            argv: ["setx", "NODE_EXTRA_CA_CERTS", ca.certPath],
            runnable: true,
          },
        ],
        remove: [
          {
            what: "remove the CA from your user's root store",
            argv: ["certutil", "-user", "-delstore", "Root", ca.serialNumber],
            runnable: true,
          },
          {
            what: "unset NODE_EXTRA_CA_CERTS",
            argv: ["reg", "delete", "HKCU\\Environment", "/v", "NODE_EXTRA_CA_CERTS", "/f"],
            runnable: true,
          },
        ],
      };
    case "linux-debian":
    case "linux-fedora": {
      const debian = platform === "linux-debian";
      const anchor = debian
        ? `/usr/local/share/ca-certificates/${linuxFileName}`
        : `/etc/pki/ca-trust/source/anchors/${linuxFileName}`;
      const update = debian
        ? ["sudo", "update-ca-certificates"]
        : ["sudo", "update-ca-trust", "extract"];
      const updateAfterRemove = debian ? ["sudo", "update-ca-certificates", "--fresh"] : update;
      return {
        platform,
        title: debian ? "Linux (Debian, Ubuntu)" : "Linux (Fedora, RHEL)",
        install: [
          {
            what: "add the CA to the system store",
            argv: ["sudo", "cp", ca.certPath, anchor],
            runnable: true,
          },
          { what: "rebuild the system store", argv: update, runnable: true },
          {
            what: "trust it in your NSS database, which Cursor's Chromium side reads (needs libnss3-tools)",
            argv: [
              "certutil",
              "-d",
              `sql:${nss}`,
              "-A",
              "-t",
              "C,,",
              "-n",
              ca.commonName,
              "-i",
              ca.certPath,
            ],
            runnable: true,
          },
          {
            what: "add to ~/.profile (or where your desktop session gets its environment), then log in again",
            argv: ["export", `NODE_EXTRA_CA_CERTS=${ca.certPath}`],
            runnable: false,
          },
        ],
        remove: [
          {
            what: "remove the CA from the system store",
            argv: ["sudo", "rm", "-f", anchor],
            runnable: true,
          },
          { what: "rebuild the system store", argv: updateAfterRemove, runnable: true },
          {
            what: "remove it from your NSS database",
            argv: ["certutil", "-d", `sql:${nss}`, "-D", "-n", ca.commonName],
            runnable: true,
          },
          {
            what: "remove the NODE_EXTRA_CA_CERTS line from ~/.profile",
            argv: ["unset", "NODE_EXTRA_CA_CERTS"],
            runnable: false,
          },
        ],
      };
    }
    default: {
      const exhaustive: never = platform;
      throw new Error(`unknown platform ${String(exhaustive)}`);
    }
  }
}

function onPath(command: string, env: Record<string, string | undefined>): boolean {
  return (env.PATH ?? "")
    .split(delimiter)
    .some((folder) => folder !== "" && existsSync(join(folder, command)));
}

/** This machine's trust platform; on Linux, the CA tool family that is installed. */
export function currentTrustPlatform({
  platform = process.platform,
  env = process.env,
}: {
  platform?: NodeJS.Platform;
  env?: Record<string, string | undefined>;
} = {}): TrustPlatform {
  if (platform === "darwin" || platform === "win32") return platform;
  if (onPath("update-ca-trust", env) && !onPath("update-ca-certificates", env))
    return "linux-fedora";
  return "linux-debian";
}

export const allTrustPlatforms: readonly TrustPlatform[] = [
  "darwin",
  "win32",
  "linux-debian",
  "linux-fedora",
];
