import { diffRequestBodies } from "../diagnostics/diff-request-bodies.js";
import type { BodyDiff } from "../diagnostics/diff-request-bodies.js";
import type { ProviderFormat } from "../diagnostics/provider-body.js";
import { extendsPrompt, promptFingerprint } from "../diagnostics/prompt-fingerprint.js";
import { capText, recordTextLimits } from "../store/provider-call-store.js";
import type { PrefixComparison, StoredProviderCall } from "../store/provider-call-store.js";

/** The prefix doctor's view of a broken prefix, as stored with the call (the page shows it). */
interface DivergenceView {
  readonly callId: string;
  readonly previousCallId: string;
  /** The prefix doctor's comparison; `diff` may be cut to keep the view within its cap. */
  readonly diff: BodyDiff;
  /** Lines of `diff.diff` left out to stay within the cap. */
  readonly omittedDiffLines: number;
}

export interface PrefixVerdict {
  readonly prefix: PrefixComparison;
  readonly divergenceView?: string;
}

/**
 * How a model call's prompt relates to the conversation's previous model call: the fingerprint
 * chain decides whether it extends it (O(body) hashing, the previous call's body not needed);
 * where it does not, the prefix doctor explains the break when the previous body is still in
 * the provider-request log, and its view is kept, capped at `recordTextLimits.divergenceView`.
 */
export function comparePrefix({
  callId,
  body,
  format,
  epoch,
  previous,
  previousBody,
  redact,
}: {
  callId: string;
  body: unknown;
  format: ProviderFormat;
  epoch: number;
  /** The conversation's last recorded model call. */
  previous: StoredProviderCall | undefined;
  /**
   * Its body, while the provider-request log holds it (undefined otherwise). Read only to
   * explain a break: rebuilding a body costs a serialisation, and most calls extend the prompt.
   */
  previousBody: () => unknown;
  redact: (text: string) => string;
}): PrefixVerdict {
  const fingerprint = promptFingerprint({ body, format });
  const own = { historyItems: fingerprint.historyItems, digest: fingerprint.digest };
  if (previous === undefined) return { prefix: { status: "first", ...own } };
  const against = {
    previousCallId: previous.callId,
    previousItems: previous.prefix.historyItems,
  };
  if (previous.epoch !== epoch) return { prefix: { status: "compaction", ...own, ...against } };
  const previousDigest = previous.prefix.digest;
  if (
    previousDigest !== undefined &&
    extendsPrompt(fingerprint, {
      historyItems: previous.prefix.historyItems,
      digest: previousDigest,
    })
  ) {
    return {
      prefix: { status: "extends", ...own, ...against, sharedItems: previous.prefix.historyItems },
    };
  }
  const previousRequest = previousBody();
  if (previousRequest === undefined) return { prefix: { status: "broke", ...own, ...against } };
  let diff: BodyDiff;
  try {
    diff = diffRequestBodies({ previous: previousRequest, current: body, format });
  } catch {
    // Not two JSON objects (an adapter that sends something else): the break stands unexplained.
    return { prefix: { status: "broke", ...own, ...against } };
  }
  const sharedItems = diff.sharedHistoryItems;
  if (diff.cause.kind === "append-only" || diff.cause.kind === "identical") {
    return { prefix: { status: "extends", ...own, ...against, sharedItems } };
  }
  return {
    prefix: {
      status: "broke",
      ...own,
      ...against,
      sharedItems,
      divergence: {
        path: capText(diff.divergence?.path || "(cache namespace)", recordTextLimits.path),
        causeKind: diff.cause.kind,
        cause: capText(redact(diff.cause.summary), recordTextLimits.cause),
      },
    },
    divergenceView: divergenceViewText({
      callId,
      previousCallId: previous.callId,
      diff,
      redact,
    }),
  };
}

/** The view as JSON within the cap: diff lines are dropped from the end until it fits. */
function divergenceViewText({
  callId,
  previousCallId,
  diff,
  redact,
}: {
  callId: string;
  previousCallId: string;
  diff: BodyDiff;
  redact: (text: string) => string;
}): string {
  const limit = recordTextLimits.divergenceView;
  const encode = (lines: readonly string[]) =>
    redact(
      JSON.stringify({
        callId,
        previousCallId,
        diff: { ...diff, diff: lines },
        omittedDiffLines: diff.diff.length - lines.length,
      } satisfies DivergenceView),
    );
  let text = encode(diff.diff);
  if (text.length <= limit) return text;
  // Long lines are cut first, then lines dropped by halves until it fits.
  let lines = diff.diff.map((line) => capText(line, 400));
  text = encode(lines);
  while (text.length > limit && lines.length > 0) {
    lines = lines.slice(0, Math.floor(lines.length / 2));
    text = encode(lines);
  }
  if (text.length > limit) {
    // Even without a diff the comparison is too large (huge namespace values): keep the essentials.
    return redact(
      JSON.stringify({
        callId,
        previousCallId,
        diff: {
          ...diff,
          namespaceChanges: diff.namespaceChanges.map(({ field }) => ({
            field,
            previous: "(too large to keep)",
            current: "(too large to keep)",
          })),
          cause: {
            kind: diff.cause.kind,
            summary: capText(diff.cause.summary, recordTextLimits.cause),
          },
          diff: [],
        },
        omittedDiffLines: diff.diff.length,
      }),
    );
  }
  return text;
}
