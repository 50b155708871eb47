import type { CallView } from "../../../src/usage/usage-api.js";
import { dateTime, milliseconds, percent, tokens, usd } from "../format.js";
import { callHref } from "../route.js";

function prefixCell(conversationId: string, call: CallView) {
  const { prefix } = call;
  switch (prefix.status) {
    case "first":
      return "first call";
    case "extends":
      return prefix.sharedItems === null
        ? "extends"
        : `extends (${tokens(prefix.sharedItems)} items shared)`;
    case "compaction":
      return "new epoch (compaction)";
    case "not-compared":
      return "summariser: not compared";
    case "broke":
      return (
        <a href={callHref(conversationId, call.callId)}>
          broke
          {prefix.divergence === null
            ? ""
            : ` at ${prefix.divergence.path} (${prefix.divergence.causeKind})`}
        </a>
      );
    default: {
      const exhaustive: never = prefix.status;
      return String(exhaustive);
    }
  }
}

/** Every call with the provider's figures, the gateway's timings and how its prefix went. */
export function CallTable({
  conversationId,
  calls,
}: {
  conversationId: string;
  calls: readonly CallView[];
}) {
  return (
    <div class="scroll">
      <table data-testid="calls">
        <thead>
          <tr>
            <th scope="col" class="num">
              #
            </th>
            <th scope="col">Started</th>
            <th scope="col">Call</th>
            <th scope="col">Model</th>
            <th scope="col" class="num">
              Input
            </th>
            <th scope="col" class="num">
              Cached
            </th>
            <th scope="col" class="num">
              Cache write
            </th>
            <th scope="col" class="num">
              Output
            </th>
            <th scope="col" class="num">
              Cached share
            </th>
            <th scope="col" class="num">
              First token
            </th>
            <th scope="col" class="num">
              Duration
            </th>
            <th scope="col" class="num">
              Gateway
            </th>
            <th scope="col" class="num">
              Cost
            </th>
            <th scope="col">Prefix</th>
          </tr>
        </thead>
        <tbody>
          {calls.map((call, index) => (
            <tr key={call.callId} data-call-id={call.callId} class={`outcome-${call.outcome}`}>
              <td class="num">{index + 1}</td>
              <td>{dateTime(call.at)}</td>
              <td>
                {call.kind === "summarizer" ? "summariser" : "model"}
                {call.attempt > 1 ? ` (attempt ${call.attempt})` : ""}
                {call.outcome === "ok" ? "" : `: ${call.outcome}`}
                {call.error === undefined ? null : (
                  <span class="error-text"> {call.error.code}</span>
                )}
              </td>
              <td>
                {call.provider} / {call.model}
              </td>
              <td class="num" data-col="input">
                {call.usage === null ? "–" : tokens(call.usage.inputTokens)}
              </td>
              <td class="num" data-col="cached">
                {call.usage === null ? "–" : tokens(call.usage.cachedInputTokens)}
              </td>
              <td class="num" data-col="cache-write">
                {call.usage === null ? "–" : tokens(call.usage.cacheWriteTokens)}
              </td>
              <td class="num" data-col="output">
                {call.usage === null ? "–" : tokens(call.usage.outputTokens)}
              </td>
              <td class="num" data-col="cached-ratio">
                {percent(call.cachedRatio)}
              </td>
              <td class="num" data-col="ttft">
                {milliseconds(call.timings.timeToFirstTokenMs)}
              </td>
              <td class="num" data-col="duration">
                {milliseconds(call.timings.durationMs)}
              </td>
              <td class="num" data-col="overhead">
                {milliseconds(call.timings.gatewayOverheadMs)}
              </td>
              <td class="num" data-col="cost">
                {usd(call.cost?.usd)}
              </td>
              <td data-col="prefix">{prefixCell(conversationId, call)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
