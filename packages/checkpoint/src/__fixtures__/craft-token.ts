import { canonicalJson, sha256Hex } from "@cursor/run";
import { deflateRawSync } from "node:zlib";
import { computeMac, encodeBase64Url, secretKey } from "../token-codec.js";
import type { TokenHeader } from "../token-header.js";
import { encodeSegmentContent } from "../token-segment.js";
import type { SegmentBlob } from "../token-segment.js";

// Builds version 2 tokens by hand, signed with a known secret, so tests can reach the checks
// that run after the MAC (a forger without the secret never gets that far).

export interface CraftedSegment {
  kind: "m" | "t";
  /** Blob count the header declares (default: the number of blobs). */
  count?: number;
  /** The compressed bytes (default: deflate of the segment content). */
  compressed?: Buffer;
  /** Decompressed size the header declares (default: the real one). */
  size?: number;
  blobs: SegmentBlob[];
}

export function blobOf(value: unknown): SegmentBlob {
  const bytes = Buffer.from(canonicalJson(value), "utf8");
  return { id: sha256Hex(bytes), bytes };
}

export function craftToken({
  secret,
  audience = "",
  header,
  segments,
}: {
  secret: string;
  audience?: string;
  header: Omit<TokenHeader, "segments">;
  segments: CraftedSegment[];
}): string {
  const encoded = segments.map((segment) => {
    const content = encodeSegmentContent(segment.blobs);
    const compressed = segment.compressed ?? deflateRawSync(content);
    return {
      entry: [
        segment.kind,
        segment.count ?? segment.blobs.length,
        compressed.byteLength,
        segment.size ?? content.byteLength,
        sha256Hex(compressed),
      ] as TokenHeader["segments"][number],
      part: encodeBase64Url(compressed),
    };
  });
  const headerBytes = Buffer.from(
    canonicalJson({ ...header, segments: encoded.map((segment) => segment.entry) }),
    "utf8",
  );
  const mac = computeMac({ key: secretKey(secret), version: 2, audience, content: headerBytes });
  return ["cp2", encodeBase64Url(mac), encodeBase64Url(headerBytes), ...encoded.map((s) => s.part)].join(
    ".",
  );
}
