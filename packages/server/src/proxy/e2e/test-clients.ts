import type { OutgoingHttpHeaders } from "node:http";
import {
  h1Request,
  h2Request,
  h2ThroughProxy,
  keepAliveAgent,
  tlsThroughProxy,
} from "./proxy-client.js";
import type { ClientAnswer } from "./proxy-client.js";

export type ClientProtocol = "h1" | "h2";

/** An IDE-like client of one Cursor host through the proxy, over HTTP/1.1 or HTTP/2. */
export interface CursorClient {
  request(input: {
    method?: string;
    path: string;
    headers?: OutgoingHttpHeaders;
    body?: Uint8Array;
  }): Promise<ClientAnswer>;
  close(): void;
}

/** What the IDE sends with every agent call (its own Cursor session included). */
export const ideHeaders = {
  authorization: "Bearer cursor-session-token-0123456789abcdef",
  "connect-protocol-version": "1",
  "x-cursor-client-version": "2.1.0",
  "x-request-id": "ide-request-1",
} as const;

export async function cursorClient({
  protocol,
  proxyPort,
  ca,
  host = "api2.cursor.sh",
}: {
  protocol: ClientProtocol;
  proxyPort: number;
  ca: readonly string[];
  host?: string;
}): Promise<CursorClient> {
  if (protocol === "h2") {
    const session = await h2ThroughProxy({ proxyPort, host, ca });
    session.on("error", () => undefined);
    return {
      request: ({ method, path, headers, body }) =>
        h2Request({
          session,
          path,
          ...(method === undefined ? {} : { method }),
          ...(headers === undefined ? {} : { headers }),
          ...(body === undefined ? {} : { body }),
        }),
      close: () => session.destroy(),
    };
  }
  const agent = keepAliveAgent(() => tlsThroughProxy({ proxyPort, host, ca, alpn: ["http/1.1"] }));
  return {
    request: ({ method, path, headers, body }) =>
      h1Request({
        agent,
        path,
        authority: host,
        ...(method === undefined ? {} : { method }),
        ...(headers === undefined ? {} : { headers }),
        ...(body === undefined ? {} : { body }),
      }),
    close: () => agent.destroy(),
  };
}

/** Polls until `condition` holds (for states another connection brings about). */
export async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
