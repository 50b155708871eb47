import { isRecord } from "./provider-body.js";

/** Usage the gateway recorded for a provider call (`provider-requests` records carry it). */
export interface RecordedUsage {
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteTokens: number;
  readonly outputTokens: number;
}

/** One provider request body, with what the gateway's request log says about it. */
export interface RequestEntry {
  readonly body: unknown;
  /** Provider id from the request log (`openai-responses`, `openai-chat`, `anthropic`). */
  readonly provider?: string;
  readonly at?: string;
  /** The call's usage record id (the gateway's request log names it). */
  readonly callId?: string;
  readonly usage?: RecordedUsage;
}

function isUsage(value: unknown): value is RecordedUsage {
  return (
    isRecord(value) &&
    typeof value.inputTokens === "number" &&
    typeof value.cachedInputTokens === "number"
  );
}

function fromRecord(record: unknown): RequestEntry {
  if (isRecord(record) && "body" in record && ("provider" in record || "at" in record)) {
    return {
      body: record.body,
      ...(typeof record.provider === "string" ? { provider: record.provider } : {}),
      ...(typeof record.at === "string" ? { at: record.at } : {}),
      ...(typeof record.callId === "string" ? { callId: record.callId } : {}),
      ...(isUsage(record.usage)
        ? {
            usage: {
              inputTokens: record.usage.inputTokens,
              cachedInputTokens: record.usage.cachedInputTokens,
              cacheWriteTokens: record.usage.cacheWriteTokens ?? 0,
              outputTokens: record.usage.outputTokens ?? 0,
            },
          }
        : {}),
    };
  }
  return { body: record };
}

/**
 * The request bodies in a JSON document: the gateway's `provider-requests` answer
 * (`{requests: [{at, provider, body, …}]}`, oldest first), a list of such records or of bodies,
 * or one provider request body.
 */
export function requestEntries(document: unknown): RequestEntry[] {
  if (isRecord(document) && Array.isArray(document.requests)) {
    return document.requests.map(fromRecord);
  }
  if (Array.isArray(document)) return document.map(fromRecord);
  return [fromRecord(document)];
}

/** `index` into `length` entries: negative counts from the end (-1 is the last). */
export function resolveIndex(index: number, length: number): number | undefined {
  const resolved = index < 0 ? length + index : index;
  return Number.isInteger(resolved) && resolved >= 0 && resolved < length ? resolved : undefined;
}
