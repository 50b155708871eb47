import { api } from "../api.js";
import type { CallView } from "../../../src/usage/usage-api.js";
import { useLoad } from "../use-load.js";
import { CallChart } from "./call-chart.js";
import { CallTable } from "./call-table.js";
import { DivergencePanel } from "./divergence-panel.js";
import { LoadState } from "./load-state.js";
import { PriceNote } from "./price-note.js";
import { percent, tokens, usd } from "../format.js";

function totals(calls: readonly CallView[]) {
  let input = 0;
  let cached = 0;
  let cost = 0;
  let uncached = 0;
  for (const call of calls) {
    input += call.usage?.inputTokens ?? 0;
    cached += call.usage?.cachedInputTokens ?? 0;
    cost += call.cost?.usd ?? 0;
    uncached += call.cost?.uncachedUsd ?? 0;
  }
  return { input, cached, cost, saved: uncached - cost };
}

/** One conversation: its figures, the chart of its calls, the calls, and an opened break. */
export function ConversationView({
  conversationId,
  callId,
  onError,
}: {
  conversationId: string;
  callId?: string;
  onError: (error: unknown) => void;
}) {
  const loaded = useLoad(`calls ${conversationId}`, () => api.calls(conversationId));
  return (
    <>
      <p class="crumbs">
        <a href="#/">All conversations</a> › <span>{conversationId}</span>
      </p>
      <LoadState loaded={loaded} what={`the calls of ${conversationId}`} onError={onError}>
        {({ calls, retentionDays }) => {
          const sums = totals(calls);
          const failed = calls.filter((call) => call.outcome !== "ok").length;
          const breaks = calls.filter((call) => call.prefix.status === "broke").length;
          const compactions = calls.filter((call) => call.kind === "summarizer").length;
          return (
            <>
              <section class="panel" aria-labelledby="conversation-title">
                <h2 id="conversation-title">Conversation {conversationId}</h2>
                <dl class="figures" data-testid="conversation-figures">
                  <div class="figure">
                    <dt>Provider calls</dt>
                    <dd data-figure="calls">{tokens(calls.length)}</dd>
                  </div>
                  <div class="figure">
                    <dt>Cached share</dt>
                    <dd data-figure="cached-ratio">
                      {percent(sums.input === 0 ? null : sums.cached / sums.input)}
                    </dd>
                  </div>
                  <div class="figure">
                    <dt>Cost</dt>
                    <dd data-figure="cost">{usd(sums.cost)}</dd>
                  </div>
                  <div class="figure">
                    <dt>Saved by caching</dt>
                    <dd data-figure="saved">{usd(sums.saved)}</dd>
                  </div>
                  <div class="figure">
                    <dt>Broken prefixes</dt>
                    <dd data-figure="breaks">{tokens(breaks)}</dd>
                  </div>
                  <div class="figure">
                    <dt>Failed calls</dt>
                    <dd data-figure="failed">{tokens(failed)}</dd>
                  </div>
                  <div class="figure">
                    <dt>Compactions</dt>
                    <dd data-figure="compactions">{tokens(compactions)}</dd>
                  </div>
                </dl>
                <CallChart
                  conversationId={conversationId}
                  calls={calls}
                  {...(callId === undefined ? {} : { selectedCallId: callId })}
                />
                <p class="meta">Records are kept {retentionDays} days.</p>
              </section>
              {callId === undefined ? null : (
                <DivergencePanel
                  conversationId={conversationId}
                  callId={callId}
                  onError={onError}
                />
              )}
              <section class="panel" aria-labelledby="calls-title">
                <h2 id="calls-title">Calls</h2>
                <CallTable conversationId={conversationId} calls={calls} />
                <PriceNote sources={calls.map((call) => call.price)} />
              </section>
            </>
          );
        }}
      </LoadState>
    </>
  );
}
