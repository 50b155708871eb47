import { HistoryLog } from "@cursor/run";
import type { CanonicalMessage } from "@cursor/run";
import { createGatewayClient } from "../client/gateway-client.js";

/** Polls `check` until it returns true (every 10 ms, up to `timeoutMs`). */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  { timeoutMs = 10_000, what = "a condition" }: { timeoutMs?: number; what?: string } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** What a client can see of a conversation: `GET /v1/conversations/{id}` and its `/history`. */
export async function conversationView(
  baseURL: string,
  conversationId: string,
  token?: string,
): Promise<{
  summary: { status: number; body: unknown };
  history: { status: number; body: unknown };
}> {
  const client = createGatewayClient({ baseURL, ...(token === undefined ? {} : { token }) });
  return {
    summary: await client.get(`/v1/conversations/${conversationId}`),
    history: await client.get(`/v1/conversations/${conversationId}/history`),
  };
}

/** A `user-message` run body with a fixed clock and a small request context. */
export function userTurn({
  conversationId,
  turn,
  text = `Question ${turn}: what does module ${turn} do?`,
  runId = `run-${turn}`,
  mode = "agent",
}: {
  conversationId: string;
  turn: number;
  text?: string;
  runId?: string;
  mode?: string;
}): Record<string, unknown> {
  return {
    conversationId,
    runId,
    mode,
    timestamp: `2026-11-29T11:${String(turn % 60).padStart(2, "0")}:00+01:00`,
    action: { type: "user-message", message: { id: `msg-${turn}`, text } },
    requestContext: {
      rules: [
        { name: "style", path: ".cursor/rules/style.mdc", content: "Prefer small functions." },
      ],
      env: { os: "linux 6.1", shell: "bash", workspacePaths: ["/w"], timeZone: "UTC" },
    },
  };
}

export function toolResults({
  conversationId,
  runId,
  results,
}: {
  conversationId: string;
  runId: string;
  results: readonly { callId: string; output: string; isError?: boolean }[];
}): Record<string, unknown> {
  return { conversationId, runId, mode: "agent", action: { type: "tool-results", results } };
}

/**
 * Loads a conversation through the API and checks its integrity from the outside: the summary
 * and the history agree, and rebuilding the history with `HistoryLog` (which validates every
 * message and tool round) gives the head digest the gateway reports.
 */
export async function verifyConversation(
  baseURL: string,
  conversationId: string,
  token?: string,
): Promise<{ epoch: number; messages: number; headDigest: string }> {
  const view = await conversationView(baseURL, conversationId, token);
  if (view.summary.status !== 200 || view.history.status !== 200) {
    throw new Error(
      `conversation ${conversationId} does not load: ${JSON.stringify(view.summary.body)}`,
    );
  }
  const summary = view.summary.body as { epoch: number; messages: number; headDigest: string };
  const messages = view.history.body as CanonicalMessage[];
  const rebuilt = new HistoryLog({ epoch: summary.epoch, messages });
  if (messages.length !== summary.messages || rebuilt.headDigest !== summary.headDigest) {
    throw new Error(
      `conversation ${conversationId}: ${messages.length} messages with digest ${rebuilt.headDigest}, the summary says ${summary.messages} with ${summary.headDigest}`,
    );
  }
  return summary;
}
