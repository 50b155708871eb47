/**
 * `@cursor/run/internal`: the model loop's plumbing (stream collection, abort racing, run-state
 * helpers, retry delays), the transcript renderer the summariser uses, the token counter's pieces
 * and the transport-failure test, for this repository's packages and tests. Not a stable API: it
 * may change in any release. Applications and provider packages use the root entry.
 */
export { collectStream, emptyDraft, raceAbort } from "./collect-stream.js";
export type { StreamDraft, StreamSink } from "./collect-stream.js";
export {
  defaultTranscriptToolResultChars,
  renderMessage,
  splitTurns,
} from "./render-transcript.js";
export { retryDelayMs } from "./retry-policy.js";
export { currentTurnMessages, openCallsAfter } from "./run-state.js";
export {
  countMessageTokens,
  countTextTokens,
  imageTokenEstimate,
  messageOverheadTokens,
} from "./token-count.js";
export { isTransportFailure } from "./provider-error-classifier.js";
