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
  let current = "";
  writeJson(value, (piece) => {
    if (piece.length >= chunkChars) {
      if (current.length > 0) chunks.push(current);
      chunks.push(piece);
      current = "";
      return;
    }
    current += piece;
    if (current.length >= chunkChars) {
      chunks.push(current);
      current = "";
    }
  });
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Hands `JSON.stringify(value)` to `sink` piece by piece, in order: an object or array at the top
 * member by member, and an array member element by element (each piece a `JSON.stringify` of its
 * own, a flat string).
 */
function writeJson(value: unknown, sink: (piece: string) => void): void {
  if (!isPlainContainer(value)) {
    const text = JSON.stringify(value) as string | undefined;
    if (text !== undefined) sink(text);
    return;
  }
  const writeArray = (array: readonly unknown[]) => {
    sink("[");
    for (let index = 0; index < array.length; index += 1) {
      // An element that is left out of an object (undefined, a function) is `null` in an array.
      const text = propertyJson(String(index), array[index]) ?? "null";
      if (index > 0) sink(",");
      sink(text);
    }
    sink("]");
  };
  if (Array.isArray(value)) {
    writeArray(value);
    return;
  }
  sink("{");
  let first = true;
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    const name = `${first ? "" : ","}${JSON.stringify(key)}:`;
    if (Array.isArray(member) && !hasToJSON(member)) {
      sink(name);
      writeArray(member);
    } else {
      const text = propertyJson(key, member);
      if (text === undefined) continue;
      sink(name);
      sink(text);
    }
    first = false;
  }
  sink("}");
}

/** Bytes of each buffer the pieces of a body are written into. */
const pieceBufferBytes = 64 * 1024;

/**
 * UTF-8 bytes of a sequence of strings, written straight into buffers of `pieceBufferBytes`
 * outside the JS heap: no string is joined, flattened or copied on the heap on the way.
 */
class Utf8Pieces {
  readonly pieces: Uint8Array[] = [];
  #buffer: Buffer = Buffer.allocUnsafe(0);
  #used = 0;

  write(text: string): void {
    // A UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair, two units, is 4).
    if (this.#buffer.length - this.#used < text.length * 3) {
      this.#close();
      const needed = text.length * 3 <= pieceBufferBytes ? 0 : Buffer.byteLength(text);
      this.#buffer = Buffer.allocUnsafe(Math.max(pieceBufferBytes, needed));
    }
    this.#used += this.#buffer.write(text, this.#used);
  }

  /** The pieces, the last one closed. */
  end(): Uint8Array[] {
    this.#close();
    return this.pieces;
  }

  #close(): void {
    if (this.#used > 0) this.pieces.push(this.#buffer.subarray(0, this.#used));
    this.#buffer = Buffer.allocUnsafe(0);
    this.#used = 0;
  }
}

const jsonBodyMarker = Symbol.for("cursor.run.json-body-stream");

/**
 * A JSON request body as a `ReadableStream` of its UTF-8 bytes, which also hands its bytes over
 * as they are (`takePieces`). The provider SDKs pass a stream body to their `fetch` as it is, so
 * any `fetch` can send it (chunked); a `fetch` that knows this class (the gateway's) takes the
 * pieces and writes them straight to the socket with a `content-length`. Its bytes are
 * `JSON.stringify(value)`'s, so a body sent this way equals one sent as an object.
 *
 * Each piece of the JSON text is written into a byte buffer as it is made, so no string of the
 * body outlives its piece and none is joined: a body held for the length of a call is bytes
 * outside the JS heap, not strings the garbage collector would copy and promote (bench, 200 turns
 * × 16 at once: several ms of GC per call).
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

  /** The body of `JSON.stringify(value)`, in buffers of 64 kB. */
  static of(value: unknown): JsonBodyStream {
    const bytes = new Utf8Pieces();
    writeJson(value, (piece) => bytes.write(piece));
    return new JsonBodyStream(bytes.end());
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
