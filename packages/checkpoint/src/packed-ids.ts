const idBytes = 32;
const sha256HexPattern = /^[0-9a-f]{64}$/;

/**
 * Blob ids (lowercase hex SHA-256) packed 32 bytes each: what a cached segment keeps of the ids
 * it names. As strings they would be a 64-character copy per message for as long as the segment
 * is cached (the history itself holds its digests packed); the hex is made again only when a
 * head digest has to be chained through the segment, which its chain memo makes rare.
 */
export function packIds(ids: readonly string[]): Buffer {
  const packed = Buffer.alloc(ids.length * idBytes);
  ids.forEach((id, index) => {
    // Any other spelling would not come back byte-identical from `unpackIds`.
    if (!sha256HexPattern.test(id)) {
      throw new TypeError(`not a lowercase hex SHA-256 blob id: ${JSON.stringify(id)}`);
    }
    packed.write(id, index * idBytes, idBytes, "hex");
  });
  return packed;
}

/** The ids `packIds` packed, as lowercase hex, in order. */
export function unpackIds(packed: Buffer): string[] {
  const ids: string[] = [];
  for (let index = 0; index < packed.byteLength / idBytes; index += 1) {
    ids.push(packedIdAt(packed, index));
  }
  return ids;
}

/** Id `index` of packed ids, lowercase hex. */
export function packedIdAt(packed: Buffer, index: number): string {
  return packed.toString("hex", index * idBytes, (index + 1) * idBytes);
}
