import { createGatewayClient } from "@cursor/server";
import type { GatewayClientEvent, RunResponse } from "@cursor/server";
import type { RunRequestBody } from "@cursor/testkit";

// The benchmark speaks the gateway's HTTP contract through @cursor/server's own client (the one
// the demo, the CLI and the end-to-end tests use), so it measures what a client sees.

export async function getJson(baseURL: string, path: string): Promise<unknown> {
  const { status, body } = await createGatewayClient({ baseURL }).get(path);
  if (status !== 200) throw new Error(`GET ${path} answered ${status}`);
  return body;
}

/** The `run.ended` reason of a finished run. */
function endReason(events: readonly GatewayClientEvent[]): string | undefined {
  const last = events.at(-1);
  return last?.event === "run.ended" ? (last.data as { reason: string }).reason : undefined;
}

/**
 * Sends one session request and checks it ends as the session expects. One known disagreement
 * between the session generator and the gateway is tolerated and reported instead of ending the
 * benchmark: an `inject-context` whose `expectedRunId` names a duplicate background delivery's
 * run, which the gateway does not count as the latest run (409). It is resent without
 * `expectedRunId` and `onDeviation` says so (the report lists every deviation).
 */
export async function sendSessionRequest({
  baseURL,
  body,
  expectedEnd,
  onDeviation,
}: {
  baseURL: string;
  body: RunRequestBody & { readonly checkpoint?: string };
  expectedEnd: string;
  onDeviation: (message: string) => void;
}): Promise<RunResponse> {
  const client = createGatewayClient({ baseURL });
  let answer = await client.run(body);
  const action = body.action;
  if (answer.status === 409 && action.type === "inject-context" && action.expectedRunId) {
    const message = JSON.stringify(answer.body);
    onDeviation(
      `inject-context with expectedRunId ${action.expectedRunId} answered 409 ${message}; resent without expectedRunId`,
    );
    const { expectedRunId: _dropped, ...rest } = action;
    answer = await client.run({ ...body, action: rest });
  }
  const reason = endReason(answer.events);
  if (answer.status !== 200 || reason !== expectedEnd) {
    throw new Error(
      `${action.type} request ended ${answer.status} ${reason ?? "(no run.ended)"}, expected ${expectedEnd}: ${JSON.stringify(answer.body ?? answer.events.at(-1))}`,
    );
  }
  return answer;
}
