import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonBodyStream, jsonChunks } from "./json-body.js";

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

describe("jsonChunks", () => {
  it("joins to exactly JSON.stringify of any JSON-like value", () => {
    // Objects with undefined, function and symbol members, sparse-ish arrays with undefined,
    // nested arrays and non-ASCII text: everything JSON.stringify treats in its own way.
    const member = fc.oneof(
      fc.jsonValue(),
      fc.constant(undefined),
      fc.constant(() => 1),
      fc.constant(Symbol("s")),
      fc.array(
        fc.oneof(
          fc.jsonValue(),
          fc.constant(undefined),
          fc.constant(() => 1),
        ),
        {
          maxLength: 30,
        },
      ),
      fc.string({ unit: "grapheme" }),
    );
    const body = fc.oneof(
      fc.dictionary(fc.string(), member, { maxKeys: 12 }),
      fc.jsonValue(),
      fc.array(member, { maxLength: 10 }),
    );
    fc.assert(
      fc.property(body, fc.integer({ min: 1, max: 200 }), (value, chunkChars) => {
        expect(jsonChunks(value, { chunkChars }).join("")).toBe(JSON.stringify(value));
      }),
      { numRuns: 500 },
    );
  });

  it("splits a large array member at element boundaries into pieces of about chunkChars", () => {
    const input = Array.from({ length: 400 }, (_, index) => ({
      type: "message",
      text: `${"x".repeat(90)}${index}`,
    }));
    const body = { model: "m", input, stream: true };
    const chunks = jsonChunks(body, { chunkChars: 1_000 });
    expect(chunks.join("")).toBe(JSON.stringify(body));
    expect(chunks.length).toBeGreaterThan(30);
    // No piece grows past the threshold by more than one element.
    const longestElement = Math.max(...input.map((item) => JSON.stringify(item).length));
    for (const chunk of chunks) expect(chunk.length).toBeLessThan(1_000 + longestElement + 2);
  });

  it("gives a value with toJSON, at the top or as a member or element, what JSON.stringify gives", () => {
    const keyed = { toJSON: (key: string) => `key=${key}` };
    const values: unknown[] = [
      new Date(0),
      { at: new Date(0), list: [new Date(1), keyed], keyed, gone: { toJSON: () => undefined } },
      [keyed, 1],
    ];
    for (const value of values) {
      expect(jsonChunks(value, { chunkChars: 4 }).join("")).toBe(JSON.stringify(value));
    }
  });

  it("throws what JSON.stringify throws", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    expect(() => jsonChunks(cyclic)).toThrow(TypeError);
    expect(() => jsonChunks({ n: [1n] })).toThrow(TypeError);
  });

  it("is one piece for a scalar, and no pieces for undefined", () => {
    expect(jsonChunks("a")).toEqual(['"a"']);
    expect(jsonChunks(undefined)).toEqual([]);
  });
});

describe("JsonBodyStream", () => {
  const bytesOf = (pieces: readonly Uint8Array[]) => Buffer.concat(pieces).toString();

  it("streams the UTF-8 bytes of JSON.stringify, in buffers, and knows their byte length", async () => {
    // Past several 64 kB buffers, with two-, three- and four-byte characters (a surrogate pair)
    // everywhere, so pieces end next to every kind of character.
    const body = {
      input: Array.from({ length: 600 }, (_, index) => ({
        text: `${"naïve — ✓ 😀 ".repeat(index % 40)}${index}`,
      })),
      stream: true,
    };
    const stream = JsonBodyStream.of(body);
    expect(stream.byteLength).toBe(Buffer.byteLength(JSON.stringify(body)));
    expect(await readAll(stream)).toBe(JSON.stringify(body));
    const again = JsonBodyStream.of(body).takePieces();
    expect(again.length).toBeGreaterThan(1);
    expect(bytesOf(again)).toBe(JSON.stringify(body));
  });

  it("holds exactly JSON.stringify's bytes for any body, one piece larger than a buffer included", () => {
    const body = fc.record({
      model: fc.string(),
      input: fc.array(fc.oneof(fc.string({ unit: "grapheme", maxLength: 3_000 }), fc.jsonValue()), {
        maxLength: 80,
      }),
      tail: fc.option(fc.string({ unit: "grapheme", minLength: 0, maxLength: 40_000 })),
    });
    fc.assert(
      fc.property(body, (value) => {
        const stream = JsonBodyStream.of(value);
        expect(bytesOf(stream.takePieces())).toBe(JSON.stringify(value));
        expect(stream.byteLength).toBe(Buffer.byteLength(JSON.stringify(value)));
      }),
      { numRuns: 60 },
    );
  });

  it("is a ReadableStream (what the SDKs pass to fetch as it is) and is recognised by isInstance", () => {
    const stream = JsonBodyStream.of({ a: 1 });
    expect(stream).toBeInstanceOf(ReadableStream);
    expect(JsonBodyStream.isInstance(stream)).toBe(true);
    expect(JsonBodyStream.isInstance(new ReadableStream())).toBe(false);
    expect(JsonBodyStream.isInstance("{}")).toBe(false);
  });

  it("hands its bytes over once: taken, it cannot be read or taken again", async () => {
    const value = { list: Array.from({ length: 20 }, (_, index) => `ünï ${index}`) };
    const stream = JsonBodyStream.of(value);
    expect(bytesOf(stream.takePieces())).toBe(JSON.stringify(value));
    expect(() => stream.takePieces()).toThrow(/sent already/);
    await expect(readAll(stream)).rejects.toThrow(/taken/);
  });

  it("cannot be taken once read", async () => {
    const stream = JsonBodyStream.of({ a: [1, 2] });
    expect(await readAll(stream)).toBe('{"a":[1,2]}');
    expect(() => stream.takePieces()).toThrow(/sent already/);
  });

  it("a huge string in one element gets a buffer of its own size", () => {
    const big = "é".repeat(300_000);
    const stream = JsonBodyStream.of({ before: "x", input: [big, "after"] });
    const pieces = stream.takePieces();
    expect(bytesOf(pieces)).toBe(JSON.stringify({ before: "x", input: [big, "after"] }));
    expect(Math.max(...pieces.map((piece) => piece.byteLength))).toBeGreaterThanOrEqual(600_000);
  });
});
