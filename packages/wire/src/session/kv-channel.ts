import { create } from "@bufbuild/protobuf";
import { ConnectError } from "../connect/connect-error.js";
import type { AgentServerMessage, KvClientMessage } from "../gen/agent_v1_pb.js";
import {
  AgentServerMessageSchema,
  GetBlobArgsSchema,
  KvServerMessageSchema,
  SetBlobArgsSchema,
} from "../gen/agent_v1_pb.js";
import { toHex } from "../hex.js";
import type { TimerHandle, WireTimers } from "./wire-timers.js";

/** The barrier's wait for acknowledgements, and a get's wait for its blob (facts §3.9). */
const defaultKvTimeoutMs = 10_000;

/** A blob for the client's store: its id is the SHA-256 of `data`. */
export interface ClientBlob {
  /** 32-byte id as lowercase hex. */
  readonly id: string;
  readonly data: Uint8Array;
}

const kvFailureMarker = Symbol.for("cursor.error.wire.kv");

/** The client failed a KV operation, or did not answer in time. */
export class KvFailure extends ConnectError {
  readonly [kvFailureMarker] = true;
  readonly blobId: string;
  constructor({ message, blobId, timeout }: { message: string; blobId: string; timeout: boolean }) {
    super({
      code: timeout ? "deadline_exceeded" : "unavailable",
      message,
      detail: {
        kind: timeout ? "timeout" : "custom-message",
        title: "Could not sync the conversation with the editor",
        detail: message,
        retryable: true,
      },
    });
    this.name = "KvFailure";
    this.blobId = blobId;
  }
  static override isInstance(error: unknown): error is KvFailure {
    return typeof error === "object" && error !== null && kvFailureMarker in error;
  }
}

type Pending =
  | {
      readonly kind: "set";
      readonly blobId: string;
      resolve(): void;
      reject(error: KvFailure): void;
    }
  | {
      readonly kind: "get";
      readonly blobId: string;
      resolve(data: Uint8Array | undefined): void;
      reject(error: KvFailure): void;
    };

/**
 * The KV half of one run stream: `set_blob_args` / `get_blob_args` go out on the downlink, the
 * client's `kv_client_message` results come back through BidiAppend and are matched by id (never
 * by arrival order). Ids count from 1 per stream.
 */
export class KvChannel {
  readonly #send: (message: AgentServerMessage) => void;
  readonly #timers: WireTimers;
  readonly #timeoutMs: number;
  readonly #pending = new Map<number, Pending>();
  /** Ids given up on (timeout): a late answer is acknowledged and ignored, not an error. */
  readonly #expired = new Set<number>();
  /**
   * Ids already answered: a client that reconnects gets the stream replayed, its KV requests
   * included, and may answer them again; a repeated answer is acknowledged and ignored.
   */
  readonly #answered = new Set<number>();
  #nextId = 1;
  #closed: ConnectError | undefined;
  /** Bytes of blob data sent with `set_blob_args` on this stream. */
  bytesSet = 0;
  setCount = 0;
  getCount = 0;

  constructor({
    send,
    timers,
    timeoutMs = defaultKvTimeoutMs,
  }: {
    send: (message: AgentServerMessage) => void;
    timers: WireTimers;
    timeoutMs?: number;
  }) {
    this.#send = send;
    this.#timers = timers;
    this.#timeoutMs = timeoutMs;
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  /**
   * The ack barrier: sends every blob and resolves once each has an error-free
   * `set_blob_result`. Rejects with `KvFailure` on the first error, or when not every blob was
   * acknowledged within the timeout.
   */
  async setBlobs(blobs: readonly ClientBlob[]): Promise<void> {
    if (blobs.length === 0) return;
    this.#assertOpen();
    const ids: number[] = [];
    const acks = blobs.map(
      (blob) =>
        new Promise<void>((resolve, reject) => {
          const id = this.#register({ kind: "set", blobId: blob.id, resolve, reject });
          ids.push(id);
          this.bytesSet += blob.data.length;
          this.setCount += 1;
          this.#send(
            create(AgentServerMessageSchema, {
              message: {
                case: "kvServerMessage",
                value: create(KvServerMessageSchema, {
                  id,
                  message: {
                    case: "setBlobArgs",
                    value: create(SetBlobArgsSchema, {
                      blobId: Buffer.from(blob.id, "hex"),
                      blobData: blob.data,
                    }),
                  },
                }),
              },
            }),
          );
        }),
    );
    await this.#withTimeout(acks, ids, blobs[0]!.id, "acknowledge");
  }

  /** Asks the client for a blob; `undefined` when the client does not have it. */
  async getBlob(blobId: Uint8Array): Promise<Uint8Array | undefined> {
    this.#assertOpen();
    const hex = toHex(blobId);
    let id = 0;
    const result = new Promise<Uint8Array | undefined>((resolve, reject) => {
      id = this.#register({ kind: "get", blobId: hex, resolve, reject });
    });
    this.getCount += 1;
    this.#send(
      create(AgentServerMessageSchema, {
        message: {
          case: "kvServerMessage",
          value: create(KvServerMessageSchema, {
            id,
            message: { case: "getBlobArgs", value: create(GetBlobArgsSchema, { blobId }) },
          }),
        },
      }),
    );
    const [data] = await this.#withTimeout([result], [id], hex, "send");
    return data;
  }

  /** A `kv_client_message` from the client. Throws a `ConnectError` when it answers nothing. */
  deliver(message: KvClientMessage): void {
    const pending = this.#pending.get(message.id);
    if (
      pending === undefined &&
      (this.#expired.delete(message.id) || this.#answered.has(message.id))
    ) {
      return;
    }
    if (pending === undefined) {
      throw new ConnectError({
        code: "failed_precondition",
        message: `kv_client_message ${message.id} answers no pending KV operation`,
      });
    }
    const result = message.message;
    if (pending.kind === "set") {
      if (result.case !== "setBlobResult") {
        throw new ConnectError({
          code: "invalid_argument",
          message: `kv_client_message ${message.id} must be a set_blob_result (it answers set_blob_args)`,
        });
      }
      this.#pending.delete(message.id);
      this.#answered.add(message.id);
      const error = result.value.error;
      if (error === undefined) pending.resolve();
      else {
        pending.reject(
          new KvFailure({
            message: `the editor could not store blob ${pending.blobId}: ${error.message || "no reason given"}`,
            blobId: pending.blobId,
            timeout: false,
          }),
        );
      }
      return;
    }
    if (result.case !== "getBlobResult") {
      throw new ConnectError({
        code: "invalid_argument",
        message: `kv_client_message ${message.id} must be a get_blob_result (it answers get_blob_args)`,
      });
    }
    this.#pending.delete(message.id);
    this.#answered.add(message.id);
    // A missing blob comes back empty or with an error (facts §3.9).
    const data = result.value.error === undefined ? result.value.blobData : undefined;
    pending.resolve(data);
  }

  /** Fails every pending operation (the stream ended) and refuses new ones. */
  close(error: ConnectError): void {
    if (this.#closed !== undefined) return;
    this.#closed = error;
    for (const pending of this.#pending.values()) {
      pending.reject(
        new KvFailure({ message: error.message, blobId: pending.blobId, timeout: false }),
      );
    }
    this.#pending.clear();
  }

  #assertOpen(): void {
    if (this.#closed !== undefined) throw this.#closed;
  }

  #register(pending: Pending): number {
    const id = this.#nextId;
    // uint32 on the wire; a stream never gets near it, but never reuse a pending id.
    this.#nextId = this.#nextId >= 0xffffffff ? 1 : this.#nextId + 1;
    this.#pending.set(id, pending);
    return id;
  }

  async #withTimeout<R>(
    operations: readonly Promise<R>[],
    ids: readonly number[],
    firstBlobId: string,
    verb: "acknowledge" | "send",
  ): Promise<R[]> {
    let timer: TimerHandle | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = this.#timers.setTimeout(() => {
        const missing = ids.filter((id) => this.#pending.has(id));
        const blobId = this.#pending.get(missing[0] ?? -1)?.blobId ?? firstBlobId;
        for (const id of missing) {
          this.#pending.delete(id);
          this.#expired.add(id);
        }
        reject(
          new KvFailure({
            message: `the editor did not ${verb} ${missing.length} blob(s) within ${this.#timeoutMs} ms (first: ${blobId})`,
            blobId,
            timeout: true,
          }),
        );
      }, this.#timeoutMs);
    });
    try {
      return await Promise.race([Promise.all(operations), timeout]);
    } finally {
      if (timer !== undefined) this.#timers.clearTimeout(timer);
    }
  }
}
