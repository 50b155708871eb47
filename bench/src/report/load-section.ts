import type { BenchResults } from "../bench-results.js";
import { bytes, count, markdownTable, milliseconds } from "./format.js";

function verdict(load: NonNullable<BenchResults["load"]>): string {
  return load.verificationProblems === 0
    ? `all ${count(load.verifiedConversations)} conversations verified`
    : `**${count(load.failedConversations)} of ${count(load.verifiedConversations)} conversations FAILED verification**`;
}

/** The load part's headline line. */
export function loadHeadlines(results: BenchResults): string[] {
  const load = results.load;
  if (load === undefined) return [];
  return [
    `Load, ${count(load.conversations)} conversations × ${load.turns} turns with tool rounds, ${load.concurrency} at once, \`${load.gateway}\` in its own process: ` +
      `${load.callsPerSecond.toFixed(0)} calls/s (direct ${load.directCallsPerSecond.toFixed(0)}), ` +
      (Number.isFinite(load.gatewayCpuMsPerCall)
        ? `${milliseconds(load.gatewayCpuMsPerCall)} of gateway CPU per call, `
        : "") +
      `+${milliseconds(load.addedMs.p50)} p50 / +${milliseconds(load.addedMs.p99)} p99 added per call, ` +
      `${load.errors === 0 ? "0 errors" : `**${load.errors} errors**`}; ${verdict(load)}`,
  ];
}

/** Part 9: many conversations with tool rounds at once, and what the store holds afterwards. */
export function loadSection(results: BenchResults): string[] {
  const load = results.load;
  if (load === undefined) return [];
  const warmUp = load.verifiedConversations - load.conversations;
  return [
    `## 9. Load: ${count(load.conversations)} conversations × ${load.turns} turns with tool rounds, ${load.concurrency} at once`,
    "",
    `Every turn is a tool round: the user names a file, the model asks for \`read_file\`, the client posts the file ` +
      "(about the size of the other parts' tool results), the model answers from it: two provider calls. The gateway is " +
      `\`${load.gateway}\` in its own process (SQLite in a fresh data folder), the fake provider another ` +
      "process whose scripted agent (`--agent`) answers from the body alone, so streams at once need no shared reply " +
      `queue; the bench client is a third. Turn by turn, every conversation's turn goes through the gateway, ` +
      `${load.concurrency} conversations at once (a wave); then that wave's provider bodies, taken from the fake ` +
      "provider's own record of what it received, are sent byte for byte straight to it at the same concurrency " +
      "(direct). The two paths alternate wave by wave; added = gateway − direct per call on the same body. " +
      `A warm-up wave of ${warmUp} more conversations (one turn) goes first and is not counted. Calls per second = ` +
      "completed calls ÷ the waves' wall time (each wave ends with fewer streams than it starts with); gateway CPU " +
      "per call = the gateway process's user + system time over the measured waves (`/proc`) ÷ its calls, which the " +
      "machine's load does not change.",
    "",
    markdownTable({
      header: [
        "calls",
        "calls/s (direct)",
        "gateway CPU per call",
        "gateway p50 / p95 / p99",
        "direct p50 / p95 / p99",
        "added p50 / p95 / p99",
        "body p50 / max",
        "errors",
      ],
      rows: [
        [
          count(load.calls),
          `${load.callsPerSecond.toFixed(1)} (${load.directCallsPerSecond.toFixed(1)})`,
          // NaN without /proc (absent in older results).
          Number.isFinite(load.gatewayCpuMsPerCall)
            ? milliseconds(load.gatewayCpuMsPerCall)
            : "n/a",
          `${milliseconds(load.gatewayMs.p50)} / ${milliseconds(load.gatewayMs.p95)} / ${milliseconds(load.gatewayMs.p99)}`,
          `${milliseconds(load.directMs.p50)} / ${milliseconds(load.directMs.p95)} / ${milliseconds(load.directMs.p99)}`,
          `${milliseconds(load.addedMs.p50)} / ${milliseconds(load.addedMs.p95)} / ${milliseconds(load.addedMs.p99)}`,
          `${bytes(load.bodyBytes.p50)} / ${bytes(load.bodyBytes.max)}`,
          String(load.errors),
        ],
      ],
    }),
    "",
    `Afterwards every conversation (${count(load.verifiedConversations)}, the warm-up's included) is read back and ` +
      "checked: it loads (`GET /v1/conversations/{id}` and `…/history`); its head digest verifies (recomputed from the " +
      "history with `@cursor/run`'s `emptyHeadDigest`, `messageDigest` and `chainHeadDigest`); nothing is stored twice " +
      "(no message id, user turn, tool call or tool result twice, one request context, every call answered); one " +
      "usage record (`…/calls`) per provider call the fake provider received from the gateway, none failed or retried, " +
      "two per run; one completed run record per client run in the store (read from its file once the gateway " +
      `stopped). Checked: ${count(load.storedMessages)} messages, ${count(load.usageRecords)} usage records for ` +
      `${count(load.providerCalls)} provider calls, ${count(load.runRecords)} run records: ${verdict(load)}` +
      (load.verificationProblems === 0 ? "." : ` (${count(load.verificationProblems)} problems).`),
    "",
    ...(load.errorSamples.length === 0
      ? []
      : [
          "Failed calls (first of them):",
          "",
          ...load.errorSamples.map((error) => `- ${error}`),
          "",
        ]),
    ...(load.verificationSamples.length === 0
      ? []
      : [
          "Verification problems (first of them):",
          "",
          ...load.verificationSamples.map((problem) => `- ${problem}`),
          "",
        ]),
  ];
}
