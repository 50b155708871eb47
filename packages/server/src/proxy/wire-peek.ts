/**
 * TO BE REPLACED BY @cursor/wire's DECODER AT INTEGRATION.
 *
 * A minimal, tolerant reader of the few protobuf fields the proxy routes on (field numbers from
 * cursor-wire-facts.md §1.3, §2.1, §2.3, §6.1), on @bufbuild/protobuf's BinaryReader. It exists
 * only so the proxy works before the wire package lands; it implements the `RunClassifier` port
 * (wire-ports.ts), which `@cursor/wire` will implement instead.
 */
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import type { AppendPeek, RunClassifier } from "./wire-ports.js";

const bidiRequestId = { requestId: 1 } as const;
const bidiAppendRequest = { data: 1, requestId: 2, appendSeqno: 3, dataBinary: 4 } as const;
const agentClientMessage = { runRequest: 1 } as const;
const agentRunRequest = { modelDetails: 3, requestedModel: 9 } as const;
const requestedModel = { modelId: 1, isVariantStringRepresentation: 8 } as const;
const modelDetails = { modelId: 1 } as const;

type Fields = Map<number, { wireType: WireType; value: Uint8Array | bigint }[]>;

/**
 * The top-level fields of one message; length-delimited values as bytes, varints as bigint.
 * Undefined when the bytes are not a well-formed message.
 */
function readFields(bytes: Uint8Array): Fields | undefined {
  const fields: Fields = new Map();
  try {
    const reader = new BinaryReader(bytes);
    while (reader.pos < reader.len) {
      const [fieldNo, wireType] = reader.tag();
      if (fieldNo === 0) return undefined;
      const entries = fields.get(fieldNo) ?? [];
      switch (wireType) {
        case WireType.LengthDelimited:
          entries.push({ wireType, value: reader.bytes() });
          break;
        case WireType.Varint:
          entries.push({ wireType, value: BigInt(reader.uint64()) });
          break;
        default:
          reader.skip(wireType, fieldNo);
          continue;
      }
      fields.set(fieldNo, entries);
    }
    return fields;
  } catch {
    return undefined;
  }
}

/** Protobuf semantics for a singular field: the last occurrence wins. */
function lastBytes(fields: Fields, fieldNo: number): Uint8Array | undefined {
  const entries = fields.get(fieldNo)?.filter((entry) => entry.value instanceof Uint8Array);
  const last = entries?.[entries.length - 1]?.value;
  return last instanceof Uint8Array ? last : undefined;
}

function lastVarint(fields: Fields, fieldNo: number): bigint | undefined {
  const entries = fields.get(fieldNo)?.filter((entry) => typeof entry.value === "bigint");
  const last = entries?.[entries.length - 1]?.value;
  return typeof last === "bigint" ? last : undefined;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
function text(bytes: Uint8Array | undefined): string | undefined {
  if (bytes === undefined) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * A unary body is raw protobuf, or one Connect envelope whose length is the rest of the body
 * (cursor-wire-facts.md §1.5). A raw message cannot start with a byte below 8: that would be
 * field number 0, which protobuf forbids, so the first byte tells the two apart. A compressed
 * envelope (flag 1) is not unwrapped: nobody compresses these few bytes, and the run then simply
 * goes to Cursor.
 */
export function unwrapSingleMessage(body: Uint8Array): Uint8Array | undefined {
  if (body.length >= 5 && body[0] === 0) {
    const length = new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(1);
    return length === body.length - 5 ? body.subarray(5) : undefined;
  }
  if (body.length > 0 && body[0]! < 8) return undefined;
  return body;
}

function decodeHex(value: string): Uint8Array | undefined {
  if (value.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(value)) return undefined;
  return Uint8Array.from(Buffer.from(value, "hex"));
}

function readRequestId(bytes: Uint8Array | undefined): string | undefined {
  if (bytes === undefined) return undefined;
  const fields = readFields(bytes);
  if (fields === undefined) return undefined;
  const id = text(lastBytes(fields, bidiRequestId.requestId));
  return id === undefined || id === "" ? undefined : id;
}

/** `RequestedModel.model_id`, without the effort suffix a variant string carries. */
function requestedModelId(bytes: Uint8Array): string | undefined {
  const fields = readFields(bytes);
  if (fields === undefined) return undefined;
  const id = text(lastBytes(fields, requestedModel.modelId));
  if (id === undefined || id === "") return undefined;
  const isVariant = (lastVarint(fields, requestedModel.isVariantStringRepresentation) ?? 0n) !== 0n;
  if (!isVariant) return id;
  // Variant strings seen: `<id>:<effort>` (GO) and `<id>[param=value,...]` (RS).
  const bracket = id.indexOf("[");
  if (bracket > 0 && id.endsWith("]")) return id.slice(0, bracket);
  const colon = id.lastIndexOf(":");
  return colon > 0 ? id.slice(0, colon) : id;
}

function runRequestModelId(runRequest: Uint8Array): string | undefined {
  const fields = readFields(runRequest);
  if (fields === undefined) return undefined;
  const requested = lastBytes(fields, agentRunRequest.requestedModel);
  const fromRequested = requested === undefined ? undefined : requestedModelId(requested);
  if (fromRequested !== undefined) return fromRequested;
  const details = lastBytes(fields, agentRunRequest.modelDetails);
  if (details === undefined) return "";
  const detailFields = readFields(details);
  return detailFields === undefined
    ? undefined
    : (text(lastBytes(detailFields, modelDetails.modelId)) ?? "");
}

export function runSseRequestId(body: Uint8Array): string | undefined {
  const message = unwrapSingleMessage(body);
  return message === undefined ? undefined : readRequestId(message);
}

export function peekAppend(body: Uint8Array): AppendPeek | undefined {
  const message = unwrapSingleMessage(body);
  if (message === undefined) return undefined;
  const fields = readFields(message);
  if (fields === undefined) return undefined;
  const requestId = readRequestId(lastBytes(fields, bidiAppendRequest.requestId));
  if (requestId === undefined) return undefined;
  // Newer clients may send the message as bytes (data_binary) instead of hex (data).
  const binary = lastBytes(fields, bidiAppendRequest.dataBinary);
  const hex = text(lastBytes(fields, bidiAppendRequest.data));
  const clientMessage = binary !== undefined && binary.length > 0 ? binary : decodeHex(hex ?? "");
  if (clientMessage === undefined) return { requestId };
  const clientFields = readFields(clientMessage);
  const runRequest = clientFields && lastBytes(clientFields, agentClientMessage.runRequest);
  if (runRequest === undefined) return { requestId };
  // An unreadable model selection names no BYOK model: the run goes to Cursor, which answers it.
  return { requestId, runRequest: { modelId: runRequestModelId(runRequest) ?? "" } };
}

/** The interim `RunClassifier` (replaced by @cursor/wire's at integration). */
export const wirePeekClassifier: RunClassifier = { runSseRequestId, peekAppend };
