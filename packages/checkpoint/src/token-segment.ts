import { sha256Hex } from "@cursor/run";
import { CheckpointError } from "./checkpoint-error.js";

// The decompressed content of one token segment: a small manifest of blob ids followed by the
// blobs it names, so a segment can be checked blob by blob like the blob store.
//
//   u32be count | count × 32-byte id | count × u32be length | blob bytes, in order

const idBytes = 32;
const lengthBytes = 4;

export interface SegmentBlob {
  readonly id: string;
  readonly bytes: Uint8Array;
}

export function encodeSegmentContent(blobs: readonly SegmentBlob[]): Buffer {
  const table = Buffer.alloc(lengthBytes + blobs.length * (idBytes + lengthBytes));
  table.writeUInt32BE(blobs.length, 0);
  blobs.forEach((blob, index) => {
    table.write(blob.id, lengthBytes + index * idBytes, idBytes, "hex");
    table.writeUInt32BE(
      blob.bytes.byteLength,
      lengthBytes + blobs.length * idBytes + index * lengthBytes,
    );
  });
  return Buffer.concat([table, ...blobs.map((blob) => blob.bytes)]);
}

/**
 * Splits segment content into blobs and proves each blob hashes to its id. Any layout error is
 * `malformed`; a blob whose bytes are not its id is `blob-mismatch`.
 */
export function decodeSegmentContent(content: Buffer, what: string): SegmentBlob[] {
  const malformed = (detail: string): CheckpointError =>
    new CheckpointError({ reason: "malformed", message: `${what}: ${detail}` });
  if (content.byteLength < lengthBytes) throw malformed("no blob count");
  const count = content.readUInt32BE(0);
  const tableEnd = lengthBytes + count * (idBytes + lengthBytes);
  if (tableEnd > content.byteLength) throw malformed(`a table of ${count} blobs does not fit`);
  const blobs: SegmentBlob[] = [];
  let offset = tableEnd;
  for (let index = 0; index < count; index += 1) {
    const idStart = lengthBytes + index * idBytes;
    const id = content.subarray(idStart, idStart + idBytes).toString("hex");
    const length = content.readUInt32BE(lengthBytes + count * idBytes + index * lengthBytes);
    if (offset + length > content.byteLength) throw malformed(`blob ${id} runs past the end`);
    const bytes = content.subarray(offset, offset + length);
    offset += length;
    if (sha256Hex(bytes) !== id) {
      throw new CheckpointError({
        reason: "blob-mismatch",
        message: `${what}: blob ${id} does not hash to its id`,
        objectId: id,
      });
    }
    blobs.push({ id, bytes });
  }
  if (offset !== content.byteLength) throw malformed("bytes follow the last blob");
  return blobs;
}
