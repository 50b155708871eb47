import { deflateRawSync } from "node:zlib";

// zlib's deflate keeps a window of 2^windowBits bytes and can point back at most
// 2^windowBits - 262 of them (MAX_DIST: the window less the lookahead it reserves).
const lookaheadBytes = 262;
const minWindowBits = 9; // raw deflate refuses 8
const maxWindowBits = 15;
const maxMemLevel = 8; // zlib's default

/**
 * The smallest zlib settings that compress `byteLength` bytes as well as the defaults do.
 *
 * Why: the defaults (windowBits 15, memLevel 8) allocate about 260 kB of state per call, most of
 * it a hash table and symbol buffer sized for long inputs, while a checkpoint delta compresses a
 * segment or two of a few kB per request. Where the allocator cannot reuse that block (it is
 * above glibc's mmap threshold until the threshold adapts) each call maps and faults in fresh
 * pages: in a micro-benchmark that churns memory between calls, a 2 kB segment took about
 * 325 µs with the defaults and 31 µs with state sized to it. In the gateway the saving is small
 * (about 0.06 ms of profiled time per call at 10 turns, `pnpm bench --only overhead` with
 * `CURSOR_BENCH_GATEWAY_CPU_PROF`), but the state per call drops from 260 kB to a few kB.
 *
 * The settings keep what decides the output: a window whose reach covers the whole input (no
 * match is out of range), and a symbol buffer (2^(memLevel+6) symbols) that holds every symbol of
 * it, so the input is one block as before. Only the hash table shrinks with memLevel; for inputs
 * this short it finds the same matches (the output was byte-identical on every segment tried).
 * Any raw inflater reads the result: windowBits only limits how far back the encoder looks.
 */
export function segmentDeflateOptions(byteLength: number): {
  windowBits: number;
  memLevel: number;
} {
  let windowBits = minWindowBits;
  while (windowBits < maxWindowBits && 2 ** windowBits - lookaheadBytes < byteLength) {
    windowBits += 1;
  }
  let memLevel = 1;
  while (memLevel < maxMemLevel && 2 ** (memLevel + 6) < byteLength) memLevel += 1;
  return { windowBits, memLevel };
}

/** Raw deflate of a token segment's content, with state sized to it. */
export function deflateSegment(content: Uint8Array): Buffer {
  return deflateRawSync(content, segmentDeflateOptions(content.byteLength));
}
