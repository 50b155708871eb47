import { X509Certificate } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { connect as tlsConnect } from "node:tls";
import type { PeerCertificate, TLSSocket } from "node:tls";
import { parseArgs } from "node:util";
import { z } from "zod";
import { loadProxyConfig } from "../config.js";
import { proxyServiceName } from "../proxy/start-cursor-proxy.js";
import {
  SettingsFileError,
  defaultSettingsPath,
  proxySettings,
  readIdeSettings,
} from "./ide-settings.js";

export const doctorUsage = `cursor-gateway doctor [--proxy URL] [--settings PATH]

Checks the chain from Cursor to your provider, each step with what to fix: the proxy answers,
it intercepts Cursor's hosts with its CA, Node trusts that CA (NODE_EXTRA_CA_CERTS), the gateway
answers, a BYOK model is configured, the provider accepts the key, Cursor's settings point at
the proxy. Run it in the environment Cursor starts from (NODE_EXTRA_CA_CERTS is read at start).
  --proxy      the proxy's URL (default http://127.0.0.1:$CURSOR_GATEWAY_PROXY_PORT, else 18080)
  --settings   Cursor's settings.json (default: the user settings on this platform)`;

export type CheckStatus = "ok" | "warn" | "fail";

export interface DoctorCheck {
  readonly name: string;
  readonly status: CheckStatus;
  readonly detail: string;
  /** What to do about a warn or a fail. */
  readonly fix?: string;
}

const statusSchema = z.object({
  service: z.string(),
  proxyURL: z.string(),
  caCertPath: z.string(),
  caFingerprint256: z.string(),
  gatewayURL: z.string(),
  cursorUpstream: z.string().nullable(),
  models: z.array(
    z.object({ id: z.string(), displayName: z.string(), provider: z.string().optional() }),
  ),
});
type ProxyStatus = z.infer<typeof statusSchema>;

const providersSchema = z.object({
  checks: z.array(
    z.object({
      modelId: z.string(),
      provider: z.string(),
      status: z.enum(["ok", "warn", "fail"]),
      message: z.string(),
    }),
  ),
});

async function getJson(url: string, timeoutMs: number): Promise<unknown> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.json() as Promise<unknown>;
}

/**
 * A TLS handshake with api2.cursor.sh through the proxy, verified by Node's own trust store
 * (which holds NODE_EXTRA_CA_CERTS): no request is sent, so nothing reaches Cursor.
 */
function handshakeThroughProxy(
  proxyURL: string,
): Promise<{ authorized: boolean; error?: string; peer: PeerCertificate }> {
  const proxy = new URL(proxyURL);
  return new Promise((resolve, reject) => {
    const connect = request({
      host: proxy.hostname,
      port: Number(proxy.port),
      method: "CONNECT",
      path: "api2.cursor.sh:443",
      headers: { host: "api2.cursor.sh:443" },
      agent: false,
      timeout: 5_000,
    });
    connect.once("timeout", () =>
      connect.destroy(new Error("the proxy did not answer CONNECT in time")),
    );
    connect.once("error", reject);
    connect.once("connect", (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        reject(new Error(`the proxy answered CONNECT with ${res.statusCode}`));
        return;
      }
      const tls: TLSSocket = tlsConnect({
        socket,
        servername: "api2.cursor.sh",
        ALPNProtocols: ["http/1.1"],
        rejectUnauthorized: false,
      });
      tls.once("error", reject);
      tls.once("secureConnect", () => {
        const peer = tls.getPeerCertificate(true);
        const error = tls.authorizationError;
        tls.destroy();
        socket.destroy();
        resolve({
          authorized: tls.authorized,
          ...(error === null || error === undefined ? {} : { error: String(error) }),
          peer,
        });
      });
    });
    connect.end();
  });
}

function trustFix({
  caPath,
  env,
}: {
  caPath: string;
  env: Record<string, string | undefined>;
}): string {
  const extra = env.NODE_EXTRA_CA_CERTS;
  const where =
    extra === undefined
      ? "NODE_EXTRA_CA_CERTS is not set here"
      : !existsSync(extra)
        ? `NODE_EXTRA_CA_CERTS names ${extra}, which does not exist`
        : `NODE_EXTRA_CA_CERTS names ${extra}, which does not hold the proxy CA`;
  return `${where}: set NODE_EXTRA_CA_CERTS=${caPath} where Cursor starts (cursor-gateway setup prints the command for your system, --trust runs it), restart Cursor, and run doctor again with it set`;
}

async function proxyChecks({
  proxyURL,
  env,
}: {
  proxyURL: string;
  env: Record<string, string | undefined>;
}): Promise<{ checks: DoctorCheck[]; status?: ProxyStatus }> {
  let status: ProxyStatus;
  try {
    const parsed = statusSchema.safeParse(
      await getJson(`${proxyURL}/_cursor-gateway/status`, 3_000),
    );
    if (!parsed.success || parsed.data.service !== proxyServiceName) {
      return {
        checks: [
          {
            name: "proxy",
            status: "fail",
            detail: `${proxyURL} answers, but it is not cursor-gateway proxy`,
            fix: "another program uses this port: stop it, or set CURSOR_GATEWAY_PROXY_PORT for the proxy and run setup --apply again",
          },
        ],
      };
    }
    status = parsed.data;
  } catch (error) {
    return {
      checks: [
        {
          name: "proxy",
          status: "fail",
          detail: `nothing answers at ${proxyURL} (${(error as Error).message})`,
          fix: "start it: cursor-gateway proxy (with CURSOR_GATEWAY_PROXY_PORT if you changed the port)",
        },
      ],
    };
  }
  const checks: DoctorCheck[] = [
    { name: "proxy", status: "ok", detail: `cursor-gateway proxy answers at ${proxyURL}` },
  ];
  let caFingerprint: string | undefined;
  try {
    caFingerprint = new X509Certificate(readFileSync(status.caCertPath)).fingerprint256;
  } catch (error) {
    checks.push({
      name: "CA file",
      status: "fail",
      detail: `cannot read the proxy CA ${status.caCertPath}: ${(error as Error).message}`,
      fix: "run doctor as the user who runs the proxy",
    });
  }
  if (caFingerprint !== undefined && caFingerprint !== status.caFingerprint256) {
    checks.push({
      name: "CA file",
      status: "fail",
      detail: `${status.caCertPath} is not the CA the running proxy uses`,
      fix: "restart cursor-gateway proxy, then trust the CA again (cursor-gateway setup)",
    });
  }
  try {
    const handshake = await handshakeThroughProxy(proxyURL);
    const served = new X509Certificate(handshake.peer.raw);
    const ca = new X509Certificate(readFileSync(status.caCertPath));
    const issuedByCa = served.checkIssued(ca) && served.verify(ca.publicKey);
    checks.push(
      issuedByCa && handshake.peer.subjectaltname === "DNS:api2.cursor.sh"
        ? {
            name: "interception",
            status: "ok",
            detail: "api2.cursor.sh is served with a certificate from the proxy CA",
          }
        : {
            name: "interception",
            status: "fail",
            detail: "the certificate for api2.cursor.sh through the proxy is not from its CA",
            fix: "restart cursor-gateway proxy; if it persists, report it",
          },
    );
    checks.push(
      handshake.authorized
        ? {
            name: "Node trust",
            status: "ok",
            detail: `Node trusts the proxy CA (NODE_EXTRA_CA_CERTS=${env.NODE_EXTRA_CA_CERTS ?? "system store"})`,
          }
        : {
            name: "Node trust",
            status: "fail",
            detail: `Node does not trust the proxy CA (${handshake.error ?? "unverified"})`,
            fix: trustFix({ caPath: status.caCertPath, env }),
          },
    );
  } catch (error) {
    checks.push({
      name: "interception",
      status: "fail",
      detail: `no TLS session with api2.cursor.sh through the proxy: ${(error as Error).message}`,
      fix: "restart cursor-gateway proxy and look at its log",
    });
  }
  return { checks, status };
}

export async function gatewayChecks({
  status,
  proxyURL,
}: {
  status: ProxyStatus;
  proxyURL: string;
}): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  try {
    const health = await getJson(`${status.gatewayURL}/healthz`, 3_000);
    checks.push(
      (health as { ok?: unknown }).ok === true
        ? { name: "gateway", status: "ok", detail: `the gateway answers at ${status.gatewayURL}` }
        : {
            name: "gateway",
            status: "fail",
            detail: `${status.gatewayURL}/healthz is not healthy`,
            fix: "look at the cursor-gateway proxy log",
          },
    );
  } catch (error) {
    checks.push({
      name: "gateway",
      status: "fail",
      detail: `the gateway at ${status.gatewayURL} does not answer (${(error as Error).message})`,
      fix: "restart cursor-gateway proxy (it runs the gateway in the same process)",
    });
  }
  checks.push(
    status.models.length > 0
      ? {
          name: "BYOK models",
          status: "ok",
          detail: status.models.map((model) => `${model.id} (${model.provider ?? "?"})`).join(", "),
        }
      : {
          name: "BYOK models",
          status: "fail",
          detail: "no BYOK model is configured: every run goes to Cursor",
          fix: "set a provider key (OPENAI_API_KEY / ANTHROPIC_API_KEY) or CURSOR_GATEWAY_MODELS_FILE and restart the proxy",
        },
  );
  try {
    const parsed = providersSchema.parse(
      await getJson(`${proxyURL}/_cursor-gateway/providers`, 20_000),
    );
    for (const check of parsed.checks) {
      checks.push({
        name: `key for ${check.modelId}`,
        status: check.status,
        detail: `${check.provider}: ${check.message}`,
        ...(check.status === "ok"
          ? {}
          : { fix: "set the right key in the proxy's environment and restart it" }),
      });
    }
  } catch (error) {
    checks.push({
      name: "provider keys",
      status: "fail",
      detail: `the proxy could not check the keys: ${(error as Error).message}`,
    });
  }
  return checks;
}

function settingsCheck({
  settingsPath,
  proxyURL,
}: {
  settingsPath: string;
  proxyURL: string;
}): DoctorCheck {
  const wanted = proxySettings(proxyURL);
  if (!existsSync(settingsPath)) {
    return {
      name: "IDE settings",
      status: "warn",
      detail: `no Cursor settings at ${settingsPath}`,
      fix: "cursor-gateway setup --apply (or --settings PATH for another location)",
    };
  }
  try {
    const current = readIdeSettings({ settingsPath, keys: Object.keys(wanted) });
    const wrong = Object.entries(wanted).filter(([key, value]) => current[key] !== value);
    return wrong.length === 0
      ? {
          name: "IDE settings",
          status: "ok",
          detail: `${settingsPath} points Cursor at ${proxyURL}`,
        }
      : {
          name: "IDE settings",
          status: "warn",
          detail: `${settingsPath}: ${wrong.map(([key, value]) => `${key} is ${JSON.stringify(current[key])}, not ${JSON.stringify(value)}`).join("; ")}`,
          fix: "cursor-gateway setup --apply, then restart Cursor",
        };
  } catch (error) {
    return {
      name: "IDE settings",
      status: "warn",
      detail: SettingsFileError.isInstance(error) ? error.message : String(error),
      fix: "fix the file, then cursor-gateway setup --apply",
    };
  }
}

export async function doctorChecks({
  proxyURL,
  settingsPath,
  env,
}: {
  proxyURL: string;
  settingsPath: string;
  env: Record<string, string | undefined>;
}): Promise<DoctorCheck[]> {
  const { checks, status } = await proxyChecks({ proxyURL, env });
  if (status !== undefined) checks.push(...(await gatewayChecks({ status, proxyURL })));
  else {
    checks.push({
      name: "gateway, models, keys",
      status: "fail",
      detail: "not checked: they are reached through the proxy",
    });
  }
  checks.push(settingsCheck({ settingsPath, proxyURL }));
  return checks;
}

const labels: Record<CheckStatus, string> = { ok: "ok  ", warn: "warn", fail: "FAIL" };

/** `cursor-gateway doctor`: exit 0 when nothing failed. */
export async function runDoctorCommand({
  argv,
  env,
  io,
}: {
  argv: readonly string[];
  env: Record<string, string | undefined>;
  io: { out: NodeJS.WritableStream; err: NodeJS.WritableStream };
}): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        proxy: { type: "string" },
        settings: { type: "string" },
        help: { type: "boolean", default: false },
      },
    }));
  } catch (error) {
    io.err.write(`${(error as Error).message}\n\n${doctorUsage}\n`);
    return 2;
  }
  if (values.help) {
    io.out.write(`${doctorUsage}\n`);
    return 0;
  }
  const proxyURL = (values.proxy ?? `http://127.0.0.1:${loadProxyConfig(env).port}`).replace(
    /\/$/,
    "",
  );
  const checks = await doctorChecks({
    proxyURL,
    settingsPath: values.settings ?? defaultSettingsPath({ env }),
    env,
  });
  const width = Math.max(...checks.map((check) => check.name.length));
  for (const check of checks) {
    io.out.write(`${labels[check.status]}  ${check.name.padEnd(width)}  ${check.detail}\n`);
    if (check.fix !== undefined) io.out.write(`      ${" ".repeat(width)}  fix: ${check.fix}\n`);
  }
  const count = (status: CheckStatus) => checks.filter((check) => check.status === status).length;
  io.out.write(`doctor: ${count("ok")} ok, ${count("warn")} warnings, ${count("fail")} failed\n`);
  return count("fail") === 0 ? 0 : 1;
}
