/** Times of one streamed call, from just before the request to its first text delta and end. */
export interface StreamTiming {
  readonly firstTextMs: number;
  readonly endMs: number;
  /** The whole stream as text (checked by the caller). */
  readonly text: string;
  readonly status: number;
}

/**
 * POSTs `body` (already serialised) and reads the answer as it arrives, noting when `marker`
 * (the first text delta's event name) first shows up and when the stream ends. The body is
 * serialised before the clock starts: every path gets the same bytes, none pays for building them.
 */
export async function timedStream({
  url,
  body,
  marker,
  headers = {},
}: {
  url: string;
  body: string;
  marker: string;
  headers?: Record<string, string>;
}): Promise<StreamTiming> {
  const t0 = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  let firstTextMs = Number.NaN;
  let text = "";
  const decoder = new TextDecoder();
  if (response.body !== null) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const from = Math.max(0, text.length - marker.length);
      text += decoder.decode(value, { stream: true });
      if (Number.isNaN(firstTextMs) && text.indexOf(marker, from) !== -1) {
        firstTextMs = performance.now() - t0;
      }
    }
  }
  text += decoder.decode();
  const endMs = performance.now() - t0;
  return {
    firstTextMs: Number.isNaN(firstTextMs) ? endMs : firstTextMs,
    endMs,
    text,
    status: response.status,
  };
}
