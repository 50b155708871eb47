import { createHash, randomBytes, webcrypto } from "node:crypto";
import { isIP } from "node:net";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";

/**
 * X.509 certificates for the proxy's local CA and its per-host server certificates, built with
 * pkijs on Node's WebCrypto. Keys are ECDSA P-256: generated natively in a millisecond, accepted
 * by every TLS stack Cursor uses (Chromium, Node) and by the macOS, Windows and Linux stores.
 */

// One engine, passed explicitly to every call: pkijs's global engine (`setEngine`) is never set,
// so importing this module has no side effect.
type EngineCrypto = ConstructorParameters<typeof pkijs.CryptoEngine>[0]["crypto"];
const engine = new pkijs.CryptoEngine({
  name: "node-webcrypto",
  crypto: webcrypto as unknown as EngineCrypto,
});

type CryptoKey = webcrypto.CryptoKey;

export const keyAlgorithm = { name: "ECDSA", namedCurve: "P-256" } as const;
const signatureHash = "SHA-256";

const oid = {
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  organizationalUnit: "2.5.4.11",
  subjectKeyIdentifier: "2.5.29.14",
  keyUsage: "2.5.29.15",
  subjectAltName: "2.5.29.17",
  basicConstraints: "2.5.29.19",
  authorityKeyIdentifier: "2.5.29.35",
  extKeyUsage: "2.5.29.37",
  serverAuth: "1.3.6.1.5.5.7.3.1",
} as const;

// KeyUsage bits, most significant bit first (RFC 5280 4.2.1.3).
const keyUsageBits = {
  digitalSignature: 0x80,
  keyCertSign: 0x04,
  cRLSign: 0x02,
} as const;

export interface DistinguishedName {
  readonly commonName: string;
  readonly organization?: string;
  readonly organizationalUnit?: string;
}

export interface KeyPair {
  readonly publicKey: CryptoKey;
  readonly privateKey: CryptoKey;
}

export async function generateKeyPair(): Promise<KeyPair> {
  return webcrypto.subtle.generateKey(keyAlgorithm, true, ["sign", "verify"]);
}

export async function privateKeyToPem(privateKey: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey("pkcs8", privateKey);
  return derToPem({ der: new Uint8Array(der), label: "PRIVATE KEY" });
}

/** A PKCS#8 ECDSA P-256 key for signing (the CA's key read back from its file). */
export async function importSigningKey(pkcs8Der: Uint8Array): Promise<CryptoKey> {
  return webcrypto.subtle.importKey("pkcs8", pkcs8Der, keyAlgorithm, false, ["sign"]);
}

function derToPem({ der, label }: { der: Uint8Array; label: string }): string {
  const base64 = Buffer.from(der).toString("base64");
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

function toName(name: DistinguishedName): pkijs.RelativeDistinguishedNames {
  const attributes: [string, string][] = [[oid.commonName, name.commonName]];
  if (name.organization !== undefined) attributes.push([oid.organization, name.organization]);
  if (name.organizationalUnit !== undefined) {
    attributes.push([oid.organizationalUnit, name.organizationalUnit]);
  }
  // One attribute per RDN (CN=…, O=…, OU=…): pkijs would put them all into one multi-valued
  // RDN, so the Name is encoded here and read back.
  const encoded = new asn1js.Sequence({
    value: attributes.map(
      ([type, value]) =>
        new asn1js.Set({
          value: [
            new pkijs.AttributeTypeAndValue({
              type,
              value: new asn1js.Utf8String({ value }),
            }).toSchema(),
          ],
        }),
    ),
  });
  return pkijs.RelativeDistinguishedNames.fromBER(encoded.toBER(false));
}

/** 16 random bytes, first bit clear: a positive, unpredictable serial (CA/B baseline). */
function randomSerial(): asn1js.Integer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return new asn1js.Integer({ valueHex: bytes });
}

function extension({
  id,
  critical,
  value,
}: {
  id: string;
  critical: boolean;
  value: { toSchema(): asn1js.BaseBlock } | asn1js.BaseBlock;
}): pkijs.Extension {
  const schema = value instanceof asn1js.BaseBlock ? value : value.toSchema();
  return new pkijs.Extension({ extnID: id, critical, extnValue: schema.toBER(false) });
}

function keyUsage(bits: number): asn1js.BitString {
  // DER: the number of unused trailing bits is that of the lowest set bit.
  let unused = 0;
  while (unused < 7 && (bits & (1 << unused)) === 0) unused += 1;
  return new asn1js.BitString({ valueHex: new Uint8Array([bits]), unusedBits: unused });
}

/** RFC 5280 method 1: SHA-1 of the subjectPublicKey bits (what every CA tool computes). */
function keyIdentifier(certificate: pkijs.Certificate): Uint8Array {
  const publicKeyBits = certificate.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView;
  return createHash("sha1").update(publicKeyBits).digest();
}

function subjectAltName(hosts: readonly string[]): pkijs.AltName {
  return new pkijs.AltName({
    altNames: hosts.map((host) => {
      switch (isIP(host)) {
        case 0:
          return new pkijs.GeneralName({ type: 2, value: host });
        case 4:
          return new pkijs.GeneralName({
            type: 7,
            value: new asn1js.OctetString({ valueHex: Uint8Array.from(host.split("."), Number) }),
          });
        default:
          // Nothing the proxy serves is reached by an IPv6 literal (intercepted hosts are names).
          throw new Error(`IPv6 addresses are not supported in certificates: ${host}`);
      }
    }),
  });
}

async function finish({
  certificate,
  signingKey,
}: {
  certificate: pkijs.Certificate;
  signingKey: CryptoKey;
}): Promise<string> {
  await certificate.sign(signingKey, signatureHash, engine);
  return derToPem({
    der: new Uint8Array(certificate.toSchema(true).toBER(false)),
    label: "CERTIFICATE",
  });
}

/** A self-signed CA certificate that may sign server certificates only (path length 0). */
export async function createCaCertificate({
  keys,
  name,
  notBefore,
  notAfter,
}: {
  keys: KeyPair;
  name: DistinguishedName;
  notBefore: Date;
  notAfter: Date;
}): Promise<string> {
  const certificate = new pkijs.Certificate();
  certificate.version = 2;
  certificate.serialNumber = randomSerial();
  certificate.subject = toName(name);
  certificate.issuer = toName(name);
  certificate.notBefore.value = notBefore;
  certificate.notAfter.value = notAfter;
  await certificate.subjectPublicKeyInfo.importKey(keys.publicKey, engine);
  certificate.extensions = [
    extension({
      id: oid.basicConstraints,
      critical: true,
      value: new pkijs.BasicConstraints({ cA: true, pathLenConstraint: 0 }),
    }),
    extension({
      id: oid.keyUsage,
      critical: true,
      value: keyUsage(
        keyUsageBits.digitalSignature | keyUsageBits.keyCertSign | keyUsageBits.cRLSign,
      ),
    }),
    extension({
      id: oid.subjectKeyIdentifier,
      critical: false,
      value: new asn1js.OctetString({ valueHex: keyIdentifier(certificate) }),
    }),
  ];
  return finish({ certificate, signingKey: keys.privateKey });
}

/** A TLS server certificate for `hosts` (DNS names or IP addresses), signed by the CA. */
export async function createServerCertificate({
  caCertificateDer,
  caPrivateKey,
  publicKey,
  hosts,
  notBefore,
  notAfter,
}: {
  caCertificateDer: Uint8Array;
  caPrivateKey: CryptoKey;
  publicKey: CryptoKey;
  hosts: readonly string[];
  notBefore: Date;
  notAfter: Date;
}): Promise<string> {
  if (hosts.length === 0) throw new Error("a server certificate needs at least one host");
  const ca = pkijs.Certificate.fromBER(caCertificateDer);
  const certificate = new pkijs.Certificate();
  certificate.version = 2;
  certificate.serialNumber = randomSerial();
  certificate.subject = toName({ commonName: hosts[0]! });
  certificate.issuer = ca.subject;
  certificate.notBefore.value = notBefore;
  certificate.notAfter.value = notAfter;
  await certificate.subjectPublicKeyInfo.importKey(publicKey, engine);
  certificate.extensions = [
    extension({
      id: oid.basicConstraints,
      critical: true,
      value: new pkijs.BasicConstraints({ cA: false }),
    }),
    extension({
      id: oid.keyUsage,
      critical: true,
      value: keyUsage(keyUsageBits.digitalSignature),
    }),
    extension({
      id: oid.extKeyUsage,
      critical: false,
      value: new pkijs.ExtKeyUsage({ keyPurposes: [oid.serverAuth] }),
    }),
    extension({ id: oid.subjectAltName, critical: false, value: subjectAltName(hosts) }),
    extension({
      id: oid.subjectKeyIdentifier,
      critical: false,
      value: new asn1js.OctetString({ valueHex: keyIdentifier(certificate) }),
    }),
    extension({
      id: oid.authorityKeyIdentifier,
      critical: false,
      value: new pkijs.AuthorityKeyIdentifier({
        keyIdentifier: new asn1js.OctetString({ valueHex: keyIdentifier(ca) }),
      }),
    }),
  ];
  return finish({ certificate, signingKey: caPrivateKey });
}
