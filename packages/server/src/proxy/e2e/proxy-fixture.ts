import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadOrCreateProxyCa } from "../proxy-ca.js";
import type { ProxyCertificateAuthority } from "../proxy-ca.js";
import type { ProxyLogger } from "../proxy-stats.js";
import { startCursorProxy } from "../start-cursor-proxy.js";
import type { ByokModel, CursorProxyOptions, RunningCursorProxy } from "../start-cursor-proxy.js";
import { startCursorStandIn, startWireRoutesStandIn } from "./cursor-stand-in.js";
import type { RunningStandIn } from "./cursor-stand-in.js";

export const byokModels: readonly ByokModel[] = [
  { id: "byok-gpt-5", displayName: "GPT-5 (my key)", provider: "openai-responses" },
  { id: "byok-claude", displayName: "Claude (my key)", provider: "anthropic" },
];

export interface LogLine {
  readonly level: "debug" | "info" | "warn" | "error";
  readonly details: Record<string, unknown>;
  readonly message: string;
}

export function recordingLogger(lines: LogLine[]): ProxyLogger {
  const at = (level: LogLine["level"]) => (details: Record<string, unknown>, message: string) => {
    lines.push({ level, details, message });
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

export interface ProxyFixture {
  readonly proxy: RunningCursorProxy;
  readonly proxyCa: ProxyCertificateAuthority;
  /** The test's own CA, which issued the stand-in's certificate (the proxy trusts it). */
  readonly standInCa: ProxyCertificateAuthority;
  readonly cursor: RunningStandIn;
  readonly gateway: RunningStandIn;
  readonly logs: LogLine[];
  readonly dataDir: string;
  close(): Promise<void>;
}

/**
 * The whole set-up of the proxy tests, all real servers on loopback: the stand-in for Cursor's
 * HTTPS servers (certificate from the test's CA), the stand-in for the gateway's wire routes, and
 * the proxy with its own generated CA, relaying to the stand-in (CURSOR_GATEWAY_CURSOR_UPSTREAM).
 */
export async function startProxyFixture({
  http1Only = false,
  gzipModelList = false,
  proxy: proxyOptions = {},
}: {
  http1Only?: boolean;
  gzipModelList?: boolean;
  proxy?: Partial<CursorProxyOptions>;
} = {}): Promise<ProxyFixture> {
  const dataDir = mkdtempSync(join(tmpdir(), "cursor-proxy-"));
  const proxyCa = await loadOrCreateProxyCa({ folder: join(dataDir, "proxy-ca") });
  const standInCa = await loadOrCreateProxyCa({ folder: join(dataDir, "stand-in-ca") });
  // For the upstream's address only: the proxy checks it against that, not the Cursor host.
  const standInCert = await standInCa.issue({ hosts: ["127.0.0.1"] });
  const cursor = await startCursorStandIn({
    cert: standInCert.certPem,
    key: standInCert.keyPem,
    http1Only,
    gzipModelList,
  });
  const gateway = await startWireRoutesStandIn();
  const logs: LogLine[] = [];
  const proxy = await startCursorProxy({
    port: 0,
    ca: proxyCa,
    gatewayOrigin: gateway.origin,
    cursorUpstream: cursor.origin,
    byokModels: () => byokModels,
    upstreamCa: [standInCa.certPem],
    logger: recordingLogger(logs),
    ...proxyOptions,
  });
  return {
    proxy,
    proxyCa,
    standInCa,
    cursor,
    gateway,
    logs,
    dataDir,
    async close() {
      await proxy.close();
      await Promise.all([cursor.close(), gateway.close()]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
