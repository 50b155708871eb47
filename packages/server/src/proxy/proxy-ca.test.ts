import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import { ProxyCaError, loadOrCreateProxyCa } from "./proxy-ca.js";

const folders: string[] = [];
function folder(): string {
  const path = mkdtempSync(join(tmpdir(), "proxy-ca-"));
  folders.push(path);
  return join(path, "proxy-ca");
}
afterEach(() => {
  for (const path of folders.splice(0)) rmSync(path, { recursive: true, force: true });
});

function extensionText(certificate: X509Certificate): string {
  return certificate.toLegacyObject().ext_key_usage?.join(",") ?? "";
}

describe("loadOrCreateProxyCa", () => {
  it("creates ca.crt and a 0600 ca.key once and reuses them byte for byte", async () => {
    const dir = folder();
    const first = await loadOrCreateProxyCa({ folder: dir });
    expect(first.created).toBe(true);
    expect(first.certPath).toBe(join(dir, "ca.crt"));
    expect(first.keyPath).toBe(join(dir, "ca.key"));
    if (process.platform !== "win32") {
      expect(statSync(first.keyPath).mode & 0o777).toBe(0o600);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
    }
    const certBytes = readFileSync(first.certPath);
    const keyBytes = readFileSync(first.keyPath);
    const second = await loadOrCreateProxyCa({ folder: dir });
    expect(second.created).toBe(false);
    expect(readFileSync(second.certPath).equals(certBytes)).toBe(true);
    expect(readFileSync(second.keyPath).equals(keyBytes)).toBe(true);
    expect(second.fingerprint256).toBe(first.fingerprint256);

    const ca = new X509Certificate(certBytes);
    expect(ca.ca).toBe(true);
    expect(ca.subject).toBe(
      `CN=${first.commonName}\nO=cursor-gateway (local)\nOU=local HTTPS proxy for the Cursor IDE`,
    );
    expect(first.commonName).toMatch(/^cursor-gateway proxy CA [0-9a-f]{8}$/);
    expect(ca.issuer).toBe(ca.subject);
    expect(ca.verify(ca.publicKey)).toBe(true);
    const years = (Date.parse(ca.validTo) - Date.parse(ca.validFrom)) / (365.25 * 86_400_000);
    expect(years).toBeGreaterThan(9.9);
    expect(years).toBeLessThan(10.1);
  });

  it("mints a server certificate per host with SAN = the host, signed by the CA, 30 days", async () => {
    const ca = await loadOrCreateProxyCa({ folder: folder() });
    const issued = await ca.issue({ hosts: ["api2.cursor.sh", "127.0.0.1"] });
    const leaf = new X509Certificate(issued.certPem);
    const root = new X509Certificate(ca.certPem);
    expect(leaf.checkIssued(root)).toBe(true);
    expect(leaf.verify(root.publicKey)).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.subjectAltName).toBe("DNS:api2.cursor.sh, IP Address:127.0.0.1");
    expect(leaf.checkHost("api2.cursor.sh")).toBe("api2.cursor.sh");
    expect(leaf.checkHost("api3.cursor.sh")).toBeUndefined();
    expect(extensionText(leaf)).toBe("1.3.6.1.5.5.7.3.1");
    const days = (Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)) / 86_400_000;
    expect(days).toBeGreaterThan(30);
    expect(days).toBeLessThan(30.1);
    expect(Date.parse(leaf.validFrom)).toBeLessThan(Date.now());
  });

  it("serves a TLS handshake that a client trusting only the CA accepts for that host only", async () => {
    const ca = await loadOrCreateProxyCa({ folder: folder() });
    const credentials = await ca.serverCredentials("agent.api5.cursor.sh");
    expect(await ca.serverCredentials("AGENT.api5.cursor.sh")).toBe(credentials);
    const server = createServer({ cert: credentials.certPem, key: credentials.keyPem });
    server.on("secureConnection", (socket) => socket.end("hi"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const handshake = (servername: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect({ host: "127.0.0.1", port, servername, ca: [ca.certPem] });
        socket.on("secureConnect", () => {
          const peer = socket.getPeerCertificate();
          socket.destroy();
          resolve(peer.subjectaltname ?? "");
        });
        socket.on("error", reject);
      });
    try {
      expect(await handshake("agent.api5.cursor.sh")).toBe("DNS:agent.api5.cursor.sh");
      await expect(handshake("api2.cursor.sh")).rejects.toMatchObject({
        code: "ERR_TLS_CERT_ALTNAME_INVALID",
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("refuses a certificate without its key and a key of another certificate, touching nothing", async () => {
    const dir = folder();
    const ca = await loadOrCreateProxyCa({ folder: dir });
    const certBytes = readFileSync(ca.certPath);
    unlinkSync(ca.keyPath);
    await expect(loadOrCreateProxyCa({ folder: dir })).rejects.toSatisfy(
      (error) =>
        ProxyCaError.isInstance(error) &&
        error.reason === "damaged" &&
        error.message.includes("ca.key is missing"),
    );
    expect(readFileSync(ca.certPath).equals(certBytes)).toBe(true);

    const other = await loadOrCreateProxyCa({ folder: folder() });
    writeFileSync(ca.keyPath, readFileSync(other.keyPath), { mode: 0o600 });
    await expect(loadOrCreateProxyCa({ folder: dir })).rejects.toSatisfy(
      (error) => ProxyCaError.isInstance(error) && error.message.includes("not the key of ca.crt"),
    );
    expect(readFileSync(ca.certPath).equals(certBytes)).toBe(true);
  });

  it("completes a folder left with a key but no certificate, and tightens a loose key mode", async () => {
    const dir = folder();
    const ca = await loadOrCreateProxyCa({ folder: dir });
    const keyBytes = readFileSync(ca.keyPath);
    unlinkSync(ca.certPath);
    const again = await loadOrCreateProxyCa({ folder: dir });
    expect(again.created).toBe(true);
    expect(readFileSync(again.keyPath).equals(keyBytes)).toBe(true);
    expect(again.fingerprint256).not.toBe(ca.fingerprint256);
    if (process.platform !== "win32") {
      const { chmodSync } = await import("node:fs");
      chmodSync(again.keyPath, 0o644);
      await loadOrCreateProxyCa({ folder: dir });
      expect(statSync(again.keyPath).mode & 0o777).toBe(0o600);
    }
  });

  it("refuses an expired CA with what to do", async () => {
    const dir = folder();
    await loadOrCreateProxyCa({ folder: dir });
    const later = new Date(Date.now() + 11 * 365 * 86_400_000);
    await expect(loadOrCreateProxyCa({ folder: dir, now: () => later })).rejects.toSatisfy(
      (error) =>
        ProxyCaError.isInstance(error) &&
        error.reason === "expired" &&
        /delete/.test(error.message),
    );
  });
});
