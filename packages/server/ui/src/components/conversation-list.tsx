import { useState } from "preact/hooks";
import { api } from "../api.js";
import type { ConversationUsageView } from "../../../src/usage/usage-api.js";
import { dateTime, percent, tokens, usd } from "../format.js";
import { conversationHref } from "../route.js";
import { useLoad } from "../use-load.js";
import { LoadState } from "./load-state.js";
import { PriceNote } from "./price-note.js";
import { SummaryPanel } from "./summary-panel.js";

/** The summary and the tenant's conversations, most recently active first. */
export function ConversationList({ onError }: { onError: (error: unknown) => void }) {
  const summary = useLoad("summary", () => api.summary());
  const first = useLoad("conversations", () => api.conversations());
  return (
    <>
      <LoadState loaded={summary} what="the summary" onError={onError}>
        {(value) => <SummaryPanel summary={value} />}
      </LoadState>
      <LoadState loaded={first} what="the conversations" onError={onError}>
        {(page) => (
          <ConversationTable
            first={page.conversations}
            {...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor })}
            onError={onError}
          />
        )}
      </LoadState>
    </>
  );
}

function ConversationTable({
  first,
  nextCursor,
  onError,
}: {
  first: readonly ConversationUsageView[];
  nextCursor?: string;
  onError: (error: unknown) => void;
}) {
  const [rows, setRows] = useState(first);
  const [cursor, setCursor] = useState(nextCursor);
  const [busy, setBusy] = useState(false);
  const more = async () => {
    if (cursor === undefined) return;
    setBusy(true);
    try {
      const page = await api.conversations(cursor);
      setRows([...rows, ...page.conversations]);
      setCursor(page.nextCursor);
    } catch (error) {
      onError(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="panel" aria-labelledby="conversations-title">
      <h2 id="conversations-title">Conversations</h2>
      {rows.length === 0 ? (
        <p>No provider calls are recorded yet.</p>
      ) : (
        <div class="scroll">
          <table data-testid="conversations">
            <thead>
              <tr>
                <th scope="col">Conversation</th>
                <th scope="col" class="num">
                  Calls
                </th>
                <th scope="col" class="num">
                  Input tokens
                </th>
                <th scope="col" class="num">
                  Cached
                </th>
                <th scope="col" class="num">
                  Cost
                </th>
                <th scope="col" class="num">
                  Saved
                </th>
                <th scope="col" class="num">
                  Broken prefixes
                </th>
                <th scope="col">Last call</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.conversationId} data-conversation-id={row.conversationId}>
                  <th scope="row">
                    <a href={conversationHref(row.conversationId)}>{row.conversationId}</a>
                  </th>
                  <td class="num" data-col="calls">
                    {tokens(row.calls)}
                  </td>
                  <td class="num" data-col="input">
                    {tokens(row.tokens.inputTokens)}
                  </td>
                  <td class="num" data-col="cached-ratio">
                    {percent(row.cachedRatio)}
                  </td>
                  <td class="num" data-col="cost">
                    {usd(row.cost.usd)}
                  </td>
                  <td class="num" data-col="saved">
                    {usd(row.cost.savedUsd)}
                  </td>
                  <td class="num" data-col="breaks">
                    {tokens(row.brokenPrefixes)}
                  </td>
                  <td data-col="last">{dateTime(row.lastAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cursor === undefined ? null : (
        <button type="button" onClick={() => void more()} disabled={busy}>
          {busy ? "Loading…" : "More conversations"}
        </button>
      )}
      <PriceNote sources={rows.flatMap((row) => row.byModel.map((model) => model.price))} />
    </section>
  );
}
