import type { ModelRequest, ProviderAdapter, ProviderEvent, StreamOptions } from "@cursor/run";

/**
 * Wraps an adapter so every request body it sends is reported (for the provider-requests
 * endpoint and the metrics). The body is the adapter's own `serialize` output: the bytes it
 * sends, without keys or auth headers, which live in the SDK client only.
 */
export function recordingProvider({
  adapter,
  onRequest,
}: {
  adapter: ProviderAdapter;
  onRequest: (record: { request: ModelRequest; body: unknown }) => void;
}): ProviderAdapter {
  return {
    id: adapter.id,
    serialize: (request) => adapter.serialize(request),
    stream(request: ModelRequest, options?: StreamOptions): AsyncIterable<ProviderEvent> {
      onRequest({ request, body: adapter.serialize(request).body });
      return adapter.stream(request, options);
    },
  };
}
