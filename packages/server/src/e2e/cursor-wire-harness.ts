import { join } from "node:path";
import type { CanonicalMessage } from "@cursor/run";
import { ScriptedIdeClient } from "@cursor/wire/testing";
import type { ScriptedIdeClientOptions } from "@cursor/wire/testing";
import { createGatewayClient } from "../client/gateway-client.js";
import { gatewayEnvironment, testCheckpointSecret } from "./e2e-environment.js";
import { startGatewayProcess } from "./gateway-process.js";
import type { GatewayProcess } from "./gateway-process.js";
import type { ScriptedProvider } from "./scripted-provider.js";
import { openSqliteDump } from "./sqlite-dump.js";
import { wireFetch } from "./wire-fetch.js";
import type { WireFetch, WireProtocol } from "./wire-fetch.js";

export const wireProtocols: readonly WireProtocol[] = ["h1", "h2c"];

/** The IDE's Cursor session token, as a test sends it: it must never show up anywhere. */
export const ideAuthorization = "Bearer cursor-session-SECRET-7f3a9c1e5b2d4f60";

/** The catalog id of the single-provider model the wire gateways run (`byok/<model>`). */
export const wireModelId = "byok/gpt-5";

export interface WireGateway {
  readonly process: GatewayProcess;
  readonly url: string;
  readonly dataDir: string;
  /** Every row of the SQLite store as text (equal dumps: byte-identical content). */
  dump(): string;
  /** Messages of the conversation's current epoch, as `GET /history` gives them. */
  history(conversationId: string): Promise<CanonicalMessage[]>;
  stop(): Promise<void>;
}

/**
 * A real `cursor-gateway serve` process on a loopback port (the wire routes enabled, no auth),
 * OpenAI Responses against the testkit's fake provider, the shared checkpoint secret (so a fresh
 * process on another data folder can verify a Cursor conversation state).
 */
export async function startWireGateway({
  provider,
  dataDir,
  extra = {},
}: {
  provider: ScriptedProvider;
  dataDir: string;
  extra?: Record<string, string>;
}): Promise<WireGateway> {
  const process = await startGatewayProcess(
    gatewayEnvironment({
      api: "openai-responses",
      fake: provider.fake,
      dataDir,
      extra: {
        CURSOR_GATEWAY_MODEL: "gpt-5",
        CURSOR_GATEWAY_CHECKPOINT_SECRET: testCheckpointSecret,
        ...extra,
      },
    }),
  );
  let dumper: ReturnType<typeof openSqliteDump> | undefined;
  const client = createGatewayClient({ baseURL: process.url });
  return {
    process,
    url: process.url,
    dataDir,
    dump() {
      dumper ??= openSqliteDump(join(dataDir, "gateway.sqlite"));
      return dumper.dump();
    },
    async history(conversationId) {
      const answer = await client.get(`/v1/conversations/${conversationId}/history`);
      if (answer.status !== 200) {
        throw new Error(
          `history of ${conversationId}: ${answer.status} ${JSON.stringify(answer.body)}`,
        );
      }
      return answer.body as CanonicalMessage[];
    },
    async stop() {
      dumper?.close();
      dumper = undefined;
      await process.stop();
    },
  };
}

/** A scripted IDE talking to `url` over `protocol`, sending the IDE's Authorization header. */
export function scriptedIde({
  url,
  protocol,
  options = {},
}: {
  url: string;
  protocol: WireProtocol;
  options?: Partial<Omit<ScriptedIdeClientOptions, "fetch" | "baseUrl">>;
}): { ide: ScriptedIdeClient; transport: WireFetch } {
  const transport = wireFetch(protocol, url);
  const ide = new ScriptedIdeClient({
    fetch: transport.fetch,
    baseUrl: url,
    authorization: ideAuthorization,
    ...options,
  });
  return { ide, transport };
}

export const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
