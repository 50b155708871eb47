import { createHmac, timingSafeEqual } from "node:crypto";
import { canonicalJson } from "@cursor/run";
import { z } from "zod";
import { ConnectError } from "../connect/connect-error.js";

/** Marks the gateway's own entry in a Cursor conversation state. */
export const stateSealKind = "cursor-gateway.conversation-state";
export const stateSealVersion = 2;

/**
 * What hydration trusts of a Cursor conversation state, MAC'd under the checkpoint secret. It is
 * the blob of the state's first `root_prompt_messages_json` entry (the place Cursor's own
 * format keeps its system message): root entries are known fields the IDE stores and echoes
 * verbatim, and blob bytes are content-addressed, so the IDE cannot change them silently. The
 * turn-record blobs follow it in the root list (`turnRecords.digest` signs their ids), then the
 * epoch's message ids (`headDigest` chains them: the HistoryLog digest), so the MAC covers
 * every record's and every message's content and order.
 */
export interface StateSeal {
  readonly kind: typeof stateSealKind;
  readonly v: typeof stateSealVersion;
  readonly conversationId: string;
  readonly epoch: number;
  /** Messages of the epoch: the last root entries. */
  readonly messages: number;
  /** `HistoryLog.headDigest` of the epoch. */
  readonly headDigest: string;
  /**
   * The turn records (projection `TurnRecord`s, across epochs): `count` records in `blobs`
   * record blobs (the root entries after the seal), whose ids hash to `digest`.
   */
  readonly turnRecords: {
    readonly count: number;
    readonly blobs: number;
    readonly digest: string;
  };
  readonly lastRunId: string | null;
  /** HMAC-SHA256 (hex) of the canonical JSON of every other field. */
  readonly mac: string;
}

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);

const stateSealSchema = z.strictObject({
  kind: z.literal(stateSealKind),
  v: z.literal(stateSealVersion),
  conversationId: z.string().min(1).max(128),
  epoch: z.number().int().min(0),
  messages: z.number().int().min(0),
  headDigest: hex64,
  turnRecords: z.strictObject({
    count: z.number().int().min(0),
    blobs: z.number().int().min(0),
    digest: hex64,
  }),
  lastRunId: z.string().min(1).max(256).nullable(),
  mac: hex64,
});

function macKey(secret: string): Buffer {
  // A key of its own, so a MAC of this format can never pass as one of another.
  return createHmac("sha256", secret).update("cursor-wire/conversation-state/v1").digest();
}

function macOf(secret: string, fields: Omit<StateSeal, "mac">): string {
  return createHmac("sha256", macKey(secret)).update(canonicalJson(fields)).digest("hex");
}

export function createStateSeal({
  secret,
  ...fields
}: Omit<StateSeal, "mac" | "kind" | "v"> & { secret: string }): StateSeal {
  const unsigned = { kind: stateSealKind, v: stateSealVersion, ...fields } as const;
  return { ...unsigned, mac: macOf(secret, unsigned) };
}

/** The seal's blob bytes (canonical JSON, so equal seals are equal blobs). */
export function encodeStateSeal(seal: StateSeal): Uint8Array {
  return new TextEncoder().encode(canonicalJson(seal));
}

/** The `invalid_argument` error of a conversation state that cannot be trusted. */
export function refusedStateError(message: string, cause?: unknown): ConnectError {
  return new ConnectError({
    code: "invalid_argument",
    message: `the conversation state was refused: ${message}`,
    detail: {
      kind: "bad-request",
      title: "Conversation state rejected",
      detail: `This conversation's saved state could not be verified (${message}). Start a new chat.`,
      retryable: false,
    },
    cause,
  });
}

/**
 * Parses and verifies a seal blob: its shape, its MAC, and that it belongs to `conversationId`.
 * Throws `invalid_argument` for anything else (a forged or edited state).
 */
export function verifyStateSeal({
  data,
  secret,
  conversationId,
}: {
  data: Uint8Array;
  secret: string;
  conversationId: string;
}): StateSeal {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(data));
  } catch (error) {
    throw refusedStateError("its first root entry is not this gateway's seal", error);
  }
  const parsed = stateSealSchema.safeParse(json);
  if (!parsed.success) {
    const version = (json as { kind?: unknown; v?: unknown } | null)?.v;
    throw refusedStateError(
      (json as { kind?: unknown } | null)?.kind === stateSealKind && version !== stateSealVersion
        ? `it was written by another version of this gateway (seal v${String(version)})`
        : "its first root entry is not this gateway's seal",
    );
  }
  const { mac, ...fields } = parsed.data;
  const expected = Buffer.from(macOf(secret, fields), "hex");
  if (!timingSafeEqual(expected, Buffer.from(mac, "hex"))) {
    throw refusedStateError(
      "its integrity check failed (it was altered, or signed with another secret)",
    );
  }
  if (fields.conversationId !== conversationId) {
    throw refusedStateError(`it belongs to conversation ${fields.conversationId}`);
  }
  return parsed.data;
}
