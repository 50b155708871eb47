import { chainHeadDigest, emptyHeadDigest } from "@cursor/run";

/**
 * Chains message digests onto a head exactly like `HistoryLog` does, so a checkpoint can prove
 * its manifest against the head digest without rebuilding the log.
 */
export function chainDigests(head: string, digests: readonly string[]): string {
  let current = head;
  for (const digest of digests) current = chainHeadDigest(current, digest);
  return current;
}

/** `HistoryLog.headDigest` of an epoch holding messages with these digests, in order. */
export function headDigestOf(epoch: number, digests: readonly string[]): string {
  return chainDigests(emptyHeadDigest(epoch), digests);
}
