/** Pieces of about this many characters (UTF-16 units): small enough to stay young garbage. */
const defaultChunkChars = 32_768;

function isPlainContainer(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return true;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function hasToJSON(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  );
}

/**
 * What `JSON.stringify` writes for `value` as the property `key` of an object (undefined when it
 * leaves the property out). A value with `toJSON` is given its key, as `JSON.stringify` does.
 */
function propertyJson(key: string, value: unknown): string | undefined {
  if (!hasToJSON(value)) return JSON.stringify(value);
  const wrapped = JSON.stringify({ [key]: value });
  const prefix = 1 + JSON.stringify(key).length + 1;
  return wrapped.length === 2 ? undefined : wrapped.slice(prefix, -1);
}

/**
 * `JSON.stringify(value)` as a list of pieces of about `chunkChars` characters, whose
 * concatenation is exactly the string `JSON.stringify` returns (same key order, same treatment
 * of `undefined`, functions, symbols and `toJSON`; it throws what `JSON.stringify` throws). An
 * object or array at the top is written member by member, and an array member element by
 * element, so a provider body is never one string the size of the conversation.
 *
 * Why: V8 builds a large `JSON.stringify` result as a rope; sending it means flattening it and
 * encoding it to UTF-8, two fresh allocations the size of the body. For a 1 MB body that cost
 * several times the stringify itself (bench: `--only overhead`, 200 turns), while pieces of 32 kB
 * are cheap young-generation strings written to the socket one after the other.
 */
export function jsonChunks(
  value: unknown,
  { chunkChars = defaultChunkChars }: { chunkChars?: number } = {},
): string[] {
  const chunks: string[] = [];
  writeJson(value, chunkChars, (chunk) => chunks.push(chunk));
  return chunks;
}

/** Hands `JSON.stringify(value)` to `sink` in pieces of about `chunkChars`, in order. */
function writeJson(value: unknown, chunkChars: number, sink: (chunk: string) => void): void {
  if (!isPlainContainer(value)) {
    const text = JSON.stringify(value) as string | undefined;
    if (text !== undefined) sink(text);
    return;
  }
  let current = "";
  const emit = (piece: string) => {
    if (piece.length >= chunkChars) {
      if (current.length > 0) sink(current);
      sink(piece);
      current = "";
      return;
    }
    current += piece;
    if (current.length >= chunkChars) {
      sink(current);
      current = "";
    }
  };
  const emitArray = (array: readonly unknown[]) => {
    emit("[");
    for (let index = 0; index < array.length; index += 1) {
      // An element that is left out of an object (undefined, a function) is `null` in an array.
      const text = propertyJson(String(index), array[index]) ?? "null";
      emit(index === 0 ? text : `,${text}`);
    }
    emit("]");
  };
  if (Array.isArray(value)) {
    emitArray(value);
  } else {
    emit("{");
    let first = true;
    for (const key of Object.keys(value)) {
      const member = (value as Record<string, unknown>)[key];
      const name = `${first ? "" : ","}${JSON.stringify(key)}:`;
      if (Array.isArray(member) && !hasToJSON(member)) {
        emit(name);
        emitArray(member);
      } else {
        const text = propertyJson(key, member);
        if (text === undefined) continue;
        emit(name + text);
      }
      first = false;
    }
    emit("}");
  }
  if (current.length > 0) sink(current);
}

const jsonBodyMarker = Symbol.for("cursor.run.json-body-stream");

/**
 * A JSON request body as a `ReadableStream` of its UTF-8 bytes, which also hands its bytes over
 * as they are (`takePieces`). The provider SDKs pass a stream body to their `fetch` as it is, so
 * any `fetch` can send it (chunked); a `fetch` that knows this class (the gateway's) takes the
 * pieces and writes them straight to the socket with a `content-length`. Its bytes are
 * `JSON.stringify(value)`'s, so a body sent this way equals one sent as an object.
 *
 * The pieces are encoded as they are made (`jsonChunks`), so no string of the body outlives its
 * piece: a body held for the length of a call is bytes outside the JS heap, not strings the
 * garbage collector would copy and promote (bench, 200 turns: several ms of GC per call).
 * One-shot, like any request body: read as a stream or taken, once.
 */
export class JsonBodyStream extends ReadableStream<Uint8Array> {
  readonly [jsonBodyMarker] = true;
  /** UTF-8 bytes of the whole body (its `content-length`). */
  readonly byteLength: number;
  readonly #source: { pieces: Uint8Array[] | undefined };

  private constructor(pieces: Uint8Array[]) {
    const source: { pieces: Uint8Array[] | undefined } = { pieces };
    let next = 0;
    super(
      {
        pull(controller) {
          const held = source.pieces;
          if (held === undefined) {
            controller.error(new Error("this body was taken by the transport already"));
          } else if (next < held.length) {
            controller.enqueue(held[next++]!);
          } else {
            source.pieces = undefined;
            controller.close();
          }
        },
      },
      // Nothing is handed out until someone reads.
      { highWaterMark: 0 },
    );
    this.#source = source;
    let total = 0;
    for (const piece of pieces) total += piece.byteLength;
    this.byteLength = total;
  }

  /** The body of `JSON.stringify(value)`. */
  static of(value: unknown, { chunkChars = defaultChunkChars }: { chunkChars?: number } = {}) {
    const pieces: Uint8Array[] = [];
    writeJson(value, chunkChars, (chunk) => pieces.push(Buffer.from(chunk)));
    return new JsonBodyStream(pieces);
  }

  /**
   * The body's bytes in order, for a transport that writes them itself; afterwards the stream
   * holds nothing (the bytes are the caller's to release). Throws once taken or read.
   */
  takePieces(): readonly Uint8Array[] {
    const { pieces } = this.#source;
    if (pieces === undefined || this.locked) {
      throw new Error("this body was sent already: a request body is read or taken once");
    }
    this.#source.pieces = undefined;
    return pieces;
  }

  static isInstance(value: unknown): value is JsonBodyStream {
    return typeof value === "object" && value !== null && jsonBodyMarker in value;
  }
}
