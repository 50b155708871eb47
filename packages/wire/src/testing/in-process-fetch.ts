import type { CursorWire } from "../cursor-wire.js";
import { wireRoutes } from "../routes.js";

/** The slice of `fetch` the scripted IDE client uses; the global `fetch` is one. */
export type FetchLike = (
  url: string,
  init: {
    method: "POST";
    headers: Record<string, string>;
    body: Uint8Array;
    signal?: AbortSignal;
  },
) => Promise<Response>;

function lowerCaseHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
}

/**
 * A `fetch` that calls a `CursorWire`'s handlers in this process, as an HTTP server mounting
 * them would (RunSSE as a streamed body). For the package's own end-to-end tests; the server's
 * tests use the global `fetch` against the real gateway instead.
 */
export function createInProcessFetch(wire: CursorWire): FetchLike {
  return async (url, init) => {
    const path = new URL(url, "http://in-process").pathname;
    const headers = lowerCaseHeaders(init.headers);
    if (path === wireRoutes.runSse) {
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      let status = 200;
      let responseHeaders: Record<string, string> = {};
      let started!: () => void;
      const startedPromise = new Promise<void>((resolve) => (started = resolve));
      const stream = new ReadableStream<Uint8Array>({
        start: (c) => {
          controller = c;
        },
      });
      let closed = false;
      void wire.runSse({
        headers,
        body: init.body,
        ...(init.signal === undefined ? {} : { signal: init.signal }),
        response: {
          start: (code, values) => {
            status = code;
            responseHeaders = { ...values };
            started();
          },
          write: (chunk) => {
            if (!closed) controller.enqueue(chunk.slice());
          },
          end: () => {
            if (!closed) {
              closed = true;
              controller.close();
            }
          },
        },
      });
      init.signal?.addEventListener("abort", () => {
        if (!closed) {
          closed = true;
          controller.error(new DOMException("aborted", "AbortError"));
        }
      });
      await startedPromise;
      return new Response(stream, { status, headers: responseHeaders });
    }
    const reply =
      path === wireRoutes.bidiAppend
        ? await wire.bidiAppend({ headers, body: init.body })
        : path === wireRoutes.availableModels
          ? wire.availableModels({ headers, body: init.body })
          : (wireRoutes.getUsableModels as readonly string[]).includes(path)
            ? wire.getUsableModels({ headers, body: init.body })
            : undefined;
    if (reply === undefined) return new Response("not found", { status: 404 });
    return new Response(reply.body.length === 0 ? null : reply.body.slice(), {
      status: reply.status,
      headers: { ...reply.headers },
    });
  };
}
