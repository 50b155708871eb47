import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { loadOrCreateProxyCa } from "../proxy/proxy-ca.js";
import { runSetupCommand } from "./setup-command.js";
import { trustPlan } from "./trust-commands.js";

const folders: string[] = [];
function folder(): string {
  const path = mkdtempSync(join(tmpdir(), "setup-command-"));
  folders.push(path);
  return path;
}
afterEach(() => {
  for (const path of folders.splice(0)) rmSync(path, { recursive: true, force: true });
});

function capture() {
  const out = new PassThrough();
  const err = new PassThrough();
  let outText = "";
  let errText = "";
  out.on("data", (chunk: Buffer) => (outText += chunk.toString()));
  err.on("data", (chunk: Buffer) => (errText += chunk.toString()));
  return { io: { out, err }, out: () => outText, err: () => errText };
}

async function setup({
  argv,
  dataDir,
  run,
}: {
  argv: string[];
  dataDir: string;
  run?: (argv: readonly string[]) => number | undefined;
}) {
  const output = capture();
  const status = await runSetupCommand({
    argv,
    env: { CURSOR_GATEWAY_DATA_DIR: dataDir, CURSOR_GATEWAY_PROXY_PORT: "18123", PATH: "" },
    io: output.io,
    platform: "linux-debian",
    ...(run === undefined ? {} : { run }),
  });
  return { status, out: output.out(), err: output.err() };
}

const fixture = (name: string) => fileURLToPath(new URL(`./__fixtures__/${name}`, import.meta.url));

describe("cursor-gateway setup", () => {
  it("prints the settings, the CA and the trust commands of every platform, and creates the CA once", async () => {
    const dataDir = folder();
    const settingsPath = join(dataDir, "settings.json");
    const first = await setup({ argv: ["--settings", settingsPath], dataDir });
    expect(first.status).toBe(0);
    expect(first.out).toContain('"http.proxy": "http://127.0.0.1:18123",');
    expect(first.out).toContain('"http.proxySupport": "on",');
    expect(first.out).toContain('"cursor.general.disableHttp2": true,');
    const caPath = join(dataDir, "proxy-ca", "ca.crt");
    expect(first.out).toContain(`2. Trust the proxy's CA ${caPath}`);
    for (const title of [
      "macOS:",
      "Windows:",
      "Linux (Debian, Ubuntu) (this machine):",
      "Linux (Fedora, RHEL):",
    ]) {
      expect(first.out).toContain(`   ${title}`);
    }
    expect(first.out).toContain(`security add-trusted-cert -r trustRoot -p ssl -k`);
    expect(first.out).toContain(`certutil -user -addstore Root ${caPath}`);
    expect(first.out).toContain(`sudo update-ca-trust extract`);
    const ca = readFileSync(caPath);
    await setup({ argv: ["--settings", settingsPath], dataDir });
    expect(readFileSync(caPath).equals(ca)).toBe(true);
  });

  it("--apply then --undo restores a fixture settings file byte for byte", async () => {
    const dataDir = folder();
    const settingsPath = join(dataDir, "settings.json");
    copyFileSync(fixture("cursor-settings.jsonc"), settingsPath);
    const original = readFileSync(settingsPath);
    const applied = await setup({ argv: ["--apply", "--settings", settingsPath], dataDir });
    expect(applied.status).toBe(0);
    expect(applied.out).toContain(
      `settings: wrote ${settingsPath}, the original is kept in ${settingsPath}.cursor-gateway-backup`,
    );
    expect(readFileSync(settingsPath, "utf8")).toContain('"http.proxy": "http://127.0.0.1:18123"');
    const undone = await setup({ argv: ["--undo", "--settings", settingsPath], dataDir });
    expect(undone.status).toBe(0);
    expect(undone.out).toContain(
      `settings: ${settingsPath} is again exactly as it was before --apply`,
    );
    expect(undone.out).toContain(
      "sudo rm -f /usr/local/share/ca-certificates/cursor-gateway-proxy-ca.crt",
    );
    expect(readFileSync(settingsPath).equals(original)).toBe(true);
  });

  it("--apply leaves an unparsable file untouched and says why", async () => {
    const dataDir = folder();
    const settingsPath = join(dataDir, "settings.json");
    copyFileSync(fixture("cursor-settings-broken.jsonc"), settingsPath);
    const original = readFileSync(settingsPath);
    const result = await setup({ argv: ["--apply", "--settings", settingsPath], dataDir });
    expect(result.status).toBe(1);
    expect(result.err).toBe(
      `settings: ${settingsPath} is not valid JSON with comments (CommaExpected at line 3, column 5); it was left untouched: fix it, or set the keys by hand\n`,
    );
    expect(readFileSync(settingsPath).equals(original)).toBe(true);
  });

  it("--trust runs this platform's trust commands in order and reports a failing one", async () => {
    const dataDir = folder();
    const ran: (readonly string[])[] = [];
    const result = await setup({
      argv: ["--trust", "--settings", join(dataDir, "settings.json")],
      dataDir,
      run: (argv) => {
        ran.push(argv);
        return argv[0] === "certutil" ? undefined : 0;
      },
    });
    const ca = await loadOrCreateProxyCa({ folder: join(dataDir, "proxy-ca") });
    const plan = trustPlan({ platform: "linux-debian", ca });
    expect(ran).toEqual(plan.install.filter((step) => step.runnable).map((step) => step.argv));
    expect(ran[0]).toEqual([
      "sudo",
      "cp",
      ca.certPath,
      "/usr/local/share/ca-certificates/cursor-gateway-proxy-ca.crt",
    ]);
    expect(result.status).toBe(1);
    expect(result.err).toContain("could not start (is the tool installed?)");
    expect(result.out).toContain(
      `trust: do this yourself: export NODE_EXTRA_CA_CERTS=${ca.certPath}`,
    );

    const removed: (readonly string[])[] = [];
    const undo = await setup({
      argv: ["--undo", "--trust", "--settings", join(dataDir, "settings.json")],
      dataDir,
      run: (argv) => {
        removed.push(argv);
        return 0;
      },
    });
    expect(undo.status).toBe(0);
    expect(removed).toEqual(plan.remove.filter((step) => step.runnable).map((step) => step.argv));
  });

  it("refuses --apply with --undo", async () => {
    const result = await setup({ argv: ["--apply", "--undo"], dataDir: folder() });
    expect(result.status).toBe(2);
    expect(result.err).toContain("--apply and --undo exclude each other");
  });
});

describe("trustPlan", () => {
  const ca = {
    certPath: "/data/proxy-ca/ca.crt",
    commonName: "cursor-gateway proxy CA 0a1b2c3d",
    serialNumber: "7F01",
  };
  it("macOS: the login keychain and launchctl", () => {
    const plan = trustPlan({ platform: "darwin", ca, home: "/Users/dev" });
    expect(plan.install.map((step) => step.argv)).toEqual([
      [
        "security",
        "add-trusted-cert",
        "-r",
        "trustRoot",
        "-p",
        "ssl",
        "-k",
        "/Users/dev/Library/Keychains/login.keychain-db",
        "/data/proxy-ca/ca.crt",
      ],
      ["launchctl", "setenv", "NODE_EXTRA_CA_CERTS", "/data/proxy-ca/ca.crt"],
    ]);
    expect(plan.remove.map((step) => step.argv)).toEqual([
      [
        "security",
        "delete-certificate",
        "-c",
        "cursor-gateway proxy CA 0a1b2c3d",
        "/Users/dev/Library/Keychains/login.keychain-db",
      ],
      ["launchctl", "unsetenv", "NODE_EXTRA_CA_CERTS"],
    ]);
  });
  it("Windows: the user's root store by serial number, and setx", () => {
    const plan = trustPlan({ platform: "win32", ca });
    expect(plan.install.map((step) => step.argv)).toEqual([
      ["certutil", "-user", "-addstore", "Root", "/data/proxy-ca/ca.crt"],
      ["setx", "NODE_EXTRA_CA_CERTS", "/data/proxy-ca/ca.crt"],
    ]);
    expect(plan.remove[0]!.argv).toEqual(["certutil", "-user", "-delstore", "Root", "7F01"]);
  });
  it("Fedora: the anchors folder and update-ca-trust", () => {
    const plan = trustPlan({ platform: "linux-fedora", ca, home: "/home/dev" });
    expect(plan.install.map((step) => step.argv).slice(0, 3)).toEqual([
      [
        "sudo",
        "cp",
        "/data/proxy-ca/ca.crt",
        "/etc/pki/ca-trust/source/anchors/cursor-gateway-proxy-ca.crt",
      ],
      ["sudo", "update-ca-trust", "extract"],
      [
        "certutil",
        "-d",
        "sql:/home/dev/.pki/nssdb",
        "-A",
        "-t",
        "C,,",
        "-n",
        "cursor-gateway proxy CA 0a1b2c3d",
        "-i",
        "/data/proxy-ca/ca.crt",
      ],
    ]);
  });
});
