import {
  X509Certificate,
  createPrivateKey,
  createPublicKey,
  randomBytes,
  webcrypto,
} from "node:crypto";
import type { KeyObject } from "node:crypto";
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { CursorError } from "@cursor/run";
import {
  createCaCertificate,
  createServerCertificate,
  generateKeyPair,
  importSigningKey,
  keyAlgorithm,
  privateKeyToPem,
} from "./x509-certificates.js";
import type { KeyPair } from "./x509-certificates.js";

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;
/** The CA lives ten years: the user trusts it once. */
const caValidityMs = 3652 * dayMs;
/**
 * Server certificates live 30 days (well under the 398 days Apple's TLS policy allows) and are
 * minted again, in memory, when fewer than 2 days remain.
 */
const serverValidityMs = 30 * dayMs;
const serverRenewMarginMs = 2 * dayMs;
/** Backdating absorbs clock skew between this machine and the IDE's. */
const backdateMs = hourMs;
/** Cursor uses a handful of hosts; the bound only stops a misbehaving client growing the cache. */
const maxCachedHosts = 256;

export const proxyCaFolderName = "proxy-ca";

export type ProxyCaErrorReason = "damaged" | "expired" | "insecure" | "unreadable";

const proxyCaErrorMarker = Symbol.for("cursor.error.proxy-ca");
/** The CA files in the data folder cannot be used; the message says what to do. */
export class ProxyCaError extends CursorError {
  readonly [proxyCaErrorMarker] = true;
  readonly reason: ProxyCaErrorReason;
  constructor({
    reason,
    message,
    cause,
  }: {
    reason: ProxyCaErrorReason;
    message: string;
    cause?: unknown;
  }) {
    super({ name: "ProxyCaError", message, cause });
    this.reason = reason;
  }
  static override isInstance(error: unknown): error is ProxyCaError {
    return typeof error === "object" && error !== null && proxyCaErrorMarker in error;
  }
}

interface IssuedCertificate {
  readonly certPem: string;
  readonly keyPem: string;
}

/** The proxy's local certificate authority (cursor-wire.md, "`cursor-gateway proxy`"). */
export interface ProxyCertificateAuthority {
  /** `<folder>/ca.crt`, PEM. */
  readonly certPath: string;
  /** `<folder>/ca.key`, PKCS#8 PEM, mode 0600. */
  readonly keyPath: string;
  readonly certPem: string;
  /** SHA-256 fingerprint, colon-separated hex (as `openssl x509 -fingerprint -sha256` prints). */
  readonly fingerprint256: string;
  readonly commonName: string;
  /** Hex serial number (what `certutil -delstore` takes). */
  readonly serialNumber: string;
  readonly validTo: Date;
  /** True when this call created the files. */
  readonly created: boolean;
  /** A server certificate for `host` (SAN = host) and its key, cached per host. */
  serverCredentials(host: string): Promise<IssuedCertificate>;
  /** A certificate with its own new key for `hosts`; for stand-in servers and tests. */
  issue(input: { hosts: readonly string[] }): Promise<IssuedCertificate>;
}

interface LoadedFiles {
  readonly certPem: string;
  readonly keyPem: string;
  readonly created: boolean;
}

/**
 * Loads the CA from `folder`, creating it on first use. A half-created folder (key without
 * certificate, from a crash before anyone could trust it) is completed; a certificate without its
 * key, or a key that does not match, is refused: the user may have trusted that certificate, so
 * it is never silently replaced.
 */
export async function loadOrCreateProxyCa({
  folder,
  now = () => new Date(),
}: {
  folder: string;
  now?: () => Date;
}): Promise<ProxyCertificateAuthority> {
  const certPath = join(folder, "ca.crt");
  const keyPath = join(folder, "ca.key");
  const files = await loadOrCreateFiles({ folder, certPath, keyPath, now });
  let certificate: X509Certificate;
  let privateKey: KeyObject;
  try {
    certificate = new X509Certificate(files.certPem);
    privateKey = createPrivateKey(files.keyPem);
  } catch (error) {
    throw damaged({ folder, detail: "the files are not a PEM certificate and key", cause: error });
  }
  if (!certificate.ca) throw damaged({ folder, detail: "ca.crt is not a CA certificate" });
  if (!certificate.checkPrivateKey(privateKey)) {
    throw damaged({ folder, detail: "ca.key is not the key of ca.crt" });
  }
  if (privateKey.asymmetricKeyType !== "ec") {
    throw damaged({ folder, detail: "ca.key is not an ECDSA P-256 key" });
  }
  const validTo = new Date(certificate.validTo);
  if (validTo.getTime() <= now().getTime()) {
    throw new ProxyCaError({
      reason: "expired",
      message: `the proxy CA in ${folder} expired on ${validTo.toISOString()}: remove its trust (cursor-gateway setup prints how), delete ${folder} and start again to create a new one`,
    });
  }
  const signingKey = await importSigningKey(
    new Uint8Array(privateKey.export({ type: "pkcs8", format: "der" })),
  );
  const caDer = new Uint8Array(certificate.raw);
  // One key for every server certificate of this process, never written to disk.
  const serverKeys = await generateKeyPair();
  const serverKeyPem = await privateKeyToPem(serverKeys.privateKey);
  const issued = new Map<string, { credentials: Promise<IssuedCertificate>; notAfter: number }>();

  async function mint({ hosts, keys }: { hosts: readonly string[]; keys: KeyPair }) {
    const start = now().getTime();
    const notAfter = Math.min(start + serverValidityMs, validTo.getTime());
    const certPem = await createServerCertificate({
      caCertificateDer: caDer,
      caPrivateKey: signingKey,
      publicKey: keys.publicKey,
      hosts,
      notBefore: new Date(start - backdateMs),
      notAfter: new Date(notAfter),
    });
    return { certPem, notAfter };
  }

  return {
    certPath,
    keyPath,
    certPem: files.certPem,
    fingerprint256: certificate.fingerprint256,
    commonName: /CN=([^\n]+)/.exec(certificate.subject)?.[1] ?? certificate.subject,
    serialNumber: certificate.serialNumber,
    validTo,
    created: files.created,
    serverCredentials(host) {
      const key = host.toLowerCase();
      const cached = issued.get(key);
      if (cached !== undefined && cached.notAfter - now().getTime() > serverRenewMarginMs) {
        // Map order is the eviction order: a hit moves the host to the young end.
        issued.delete(key);
        issued.set(key, cached);
        return cached.credentials;
      }
      const notAfter = Math.min(now().getTime() + serverValidityMs, validTo.getTime());
      const credentials = mint({ hosts: [key], keys: serverKeys }).then(({ certPem }) => ({
        certPem,
        keyPem: serverKeyPem,
      }));
      issued.delete(key);
      issued.set(key, { credentials, notAfter });
      credentials.catch(() => issued.delete(key));
      while (issued.size > maxCachedHosts) {
        const oldest = issued.keys().next().value;
        if (oldest === undefined) break;
        issued.delete(oldest);
      }
      return credentials;
    },
    async issue({ hosts }) {
      const keys = await generateKeyPair();
      const { certPem } = await mint({ hosts, keys });
      return { certPem, keyPem: await privateKeyToPem(keys.privateKey) };
    },
  };
}

function damaged({
  folder,
  detail,
  cause,
}: {
  folder: string;
  detail: string;
  cause?: unknown;
}): ProxyCaError {
  return new ProxyCaError({
    reason: "damaged",
    message: `the proxy CA in ${folder} is damaged (${detail}); it is not replaced automatically because it may be trusted on this machine: remove its trust (cursor-gateway setup prints how), delete ${folder} and start again`,
    ...(cause === undefined ? {} : { cause }),
  });
}

async function loadOrCreateFiles({
  folder,
  certPath,
  keyPath,
  now,
}: {
  folder: string;
  certPath: string;
  keyPath: string;
  now: () => Date;
}): Promise<LoadedFiles> {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ProxyCaError({
      reason: "unreadable",
      message: `cannot create the proxy CA folder ${folder}: ${(error as Error).message}`,
      cause: error,
    });
  }
  const hasCert = existsSync(certPath);
  const hasKey = existsSync(keyPath);
  if (hasCert && !hasKey) throw damaged({ folder, detail: "ca.key is missing" });
  let created = false;
  if (!hasKey) {
    // Exclusive creation: a second process starting at the same moment keeps the first's key.
    const keys = await generateKeyPair();
    created = publishExclusive({
      path: keyPath,
      text: await privateKeyToPem(keys.privateKey),
      mode: 0o600,
    });
  }
  checkKeyMode({ keyPath, folder });
  const keyPem = read(keyPath);
  if (!existsSync(certPath)) {
    const privateKey = createPrivateKey(keyPem);
    const keys = await keyPairFromPrivate(privateKey);
    const start = now().getTime();
    const id = randomBytes(4).toString("hex");
    const certPem = await createCaCertificate({
      keys,
      // A unique name: the trust commands and the user find exactly this CA in their stores.
      name: {
        commonName: `cursor-gateway proxy CA ${id}`,
        organization: "cursor-gateway (local)",
        organizationalUnit: "local HTTPS proxy for the Cursor IDE",
      },
      notBefore: new Date(start - backdateMs),
      notAfter: new Date(start + caValidityMs),
    });
    publishExclusive({ path: certPath, text: certPem, mode: 0o644 });
    created = true;
  }
  return { certPem: read(certPath), keyPem, created };
}

async function keyPairFromPrivate(privateKey: KeyObject): Promise<KeyPair> {
  const [signing, verifying] = await Promise.all([
    webcrypto.subtle.importKey(
      "pkcs8",
      privateKey.export({ type: "pkcs8", format: "der" }),
      keyAlgorithm,
      false,
      ["sign"],
    ),
    webcrypto.subtle.importKey(
      "spki",
      createPublicKey(privateKey).export({ type: "spki", format: "der" }),
      keyAlgorithm,
      true,
      ["verify"],
    ),
  ]);
  return { privateKey: signing, publicKey: verifying };
}

/** Writes `text` to `path` only if nothing is there yet; true when this call wrote it. */
function publishExclusive({ path, text, mode }: { path: string; text: string; mode: number }) {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(temporary, text, { mode, flag: "wx" });
  try {
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    unlinkSync(temporary);
  }
}

function checkKeyMode({ keyPath, folder }: { keyPath: string; folder: string }): void {
  if (process.platform === "win32") return;
  const mode = statSync(keyPath).mode & 0o777;
  if ((mode & 0o077) === 0) return;
  try {
    chmodSync(keyPath, 0o600);
  } catch (error) {
    throw new ProxyCaError({
      reason: "insecure",
      message: `the proxy CA key ${keyPath} is readable by other users (mode ${mode.toString(8)}) and cannot be restricted to 0600; fix the permissions of ${folder}`,
      cause: error,
    });
  }
}

function read(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new ProxyCaError({
      reason: "unreadable",
      message: `cannot read ${path}: ${(error as Error).message}`,
      cause: error,
    });
  }
}
