/**
 * What the proxy needs from Cursor's agent protocol, as ports. The proxy only routes: it never
 * decodes more of a message than these answers need, and it relays every byte unchanged.
 *
 * Implemented today by `wire-peek.ts` and `model-list-merge.ts` in this folder; at the wire
 * integration, `@cursor/wire`'s decoders implement them instead (same shapes).
 */

export interface AppendPeek {
  /** `BidiAppendRequest.request_id.request_id`: the run this append belongs to. */
  readonly requestId: string;
  /**
   * Present when the append carries `AgentClientMessage.run_request` (the run's first message):
   * the requested model (`requested_model.model_id`, else `model_details.model_id`; `""` when
   * neither is set), without a variant suffix.
   */
  readonly runRequest?: { readonly modelId: string };
}

export interface RunClassifier {
  /**
   * The request id a RunSSE body names (`BidiRequestId`, raw protobuf or one Connect envelope);
   * undefined when the body is not one.
   */
  runSseRequestId(body: Uint8Array): string | undefined;
  /** What a BidiAppend body says about routing; undefined when the body is not one. */
  peekAppend(body: Uint8Array): AppendPeek | undefined;
}

export interface ModelListMerger {
  /**
   * `AvailableModelsResponse` bytes: Cursor's reply with the gateway's models added (a Cursor
   * entry with the id of a gateway model is replaced by it, so the picker shows each id once).
   * Throws when either input is not such a message.
   */
  availableModels(input: { cursor: Uint8Array; gateway: Uint8Array }): Uint8Array;
  /** The same for `GetUsableModelsResponse` (`ModelDetails` entries). */
  usableModels(input: { cursor: Uint8Array; gateway: Uint8Array }): Uint8Array;
}
