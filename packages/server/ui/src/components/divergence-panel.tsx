import { useEffect, useRef } from "preact/hooks";
import { api } from "../api.js";
import type { BodyDiffView, DivergenceResponse } from "../../../src/usage/usage-api.js";
import { tokens } from "../format.js";
import { conversationHref } from "../route.js";
import { useLoad } from "../use-load.js";
import { LoadState } from "./load-state.js";

/** The prefix doctor's lines are `  ` + a mark (`+`, `-`, a space) + the text, or `  @@ …`. */
function diffLineClass(line: string): string {
  if (line.startsWith("  @@")) return "hunk";
  if (line.startsWith("  +")) return "added";
  if (line.startsWith("  -")) return "removed";
  return "context";
}

function DiffBody({ diff, omitted }: { diff: BodyDiffView; omitted: number }) {
  return (
    <>
      <dl class="figures" data-testid="shared-prefix">
        <div class="figure">
          <dt>Shared history items</dt>
          <dd data-figure="shared-items">
            {tokens(diff.sharedHistoryItems)} of {tokens(diff.previous.historyItems)}
          </dd>
        </div>
        <div class="figure">
          <dt>Shared segments</dt>
          <dd data-figure="shared-segments">
            {tokens(diff.sharedSegments)} of {tokens(diff.previous.segments)}
          </dd>
        </div>
        <div class="figure">
          <dt>Shared tokens (estimate)</dt>
          <dd data-figure="shared-tokens">
            {tokens(diff.sharedTokens)} of {tokens(diff.previous.tokens)}
          </dd>
        </div>
      </dl>
      <h3>Likely cause</h3>
      <p data-testid="cause">
        <strong data-field="cause-kind">{diff.cause.kind}</strong>:{" "}
        <span data-field="cause-summary">{diff.cause.summary}</span>
      </p>
      <h3>First divergence</h3>
      {diff.divergence === undefined ? (
        <p data-testid="first-divergence">The two bodies share every segment.</p>
      ) : (
        <dl class="pairs" data-testid="first-divergence">
          <dt>Path</dt>
          <dd>
            <code data-field="path">{diff.divergence.path}</code>
          </dd>
          <dt>Segment</dt>
          <dd data-field="segment">
            {diff.divergence.segment}: {diff.divergence.previousLabel} → {diff.divergence.label}
          </dd>
          <dt>Why</dt>
          <dd data-field="reason">{diff.divergence.reason}</dd>
        </dl>
      )}
      {diff.namespaceChanges.length === 0 ? null : (
        <>
          <h3>Cache namespace changes</h3>
          <ul data-testid="namespace-changes">
            {diff.namespaceChanges.map((change) => (
              <li key={change.field}>
                <code>{change.field}</code>: {JSON.stringify(change.previous)} →{" "}
                {JSON.stringify(change.current)}
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>Diff of the two bodies</h3>
      <pre class="diff" data-testid="diff" tabIndex={0} aria-label="Diff of the two bodies">
        {diff.diff.map((line, index) => (
          <span key={index} class={diffLineClass(line)}>
            {line}
            {"\n"}
          </span>
        ))}
      </pre>
      {omitted > 0 ? <p class="meta">{omitted} more diff lines were not kept.</p> : null}
    </>
  );
}

/** The prefix doctor's view of a call whose prefix broke: the two bodies side by side. */
export function DivergencePanel({
  conversationId,
  callId,
  onError,
}: {
  conversationId: string;
  callId: string;
  onError: (error: unknown) => void;
}) {
  const loaded = useLoad(`divergence ${conversationId} ${callId}`, () =>
    api.divergence(conversationId, callId),
  );
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (loaded.state === "ready") heading.current?.focus();
  }, [loaded.state]);
  return (
    <section class="panel divergence" aria-labelledby="divergence-title" data-testid="divergence">
      <LoadState loaded={loaded} what="the prefix doctor's view" onError={onError}>
        {(answer: DivergenceResponse) => (
          <>
            <h2 id="divergence-title" tabIndex={-1} ref={heading}>
              Prefix doctor: call {answer.call.callId}
            </h2>
            {answer.view === null ? null : (
              <p class="meta">
                Compared with the previous model call, {answer.view.previousCallId}
                {answer.call.prefix.divergence === null
                  ? ""
                  : `; the prefix broke at ${answer.call.prefix.divergence.path}`}
                .
              </p>
            )}
            <p>
              <a href={conversationHref(conversationId)}>Close the prefix doctor's view</a>
            </p>
            {answer.view === null ? (
              <p data-testid="no-view">{answer.reason}</p>
            ) : (
              <DiffBody diff={answer.view.diff} omitted={answer.view.omittedDiffLines} />
            )}
          </>
        )}
      </LoadState>
    </section>
  );
}
