import { ConnectError } from "../connect/connect-error.js";
import type { PreFetchedBlob } from "../gen/agent_v1_pb.js";
import { fromHex, sha256, toHex } from "../hex.js";
import type { KvChannel } from "../session/kv-channel.js";

/**
 * Blobs the server reads from the client for one run: those attached as `pre_fetched_blobs`
 * (a 32-byte id, checked against the SHA-256 of the value when the blob is first used, so a
 * turn that needs none of them hashes none), else asked for with `get_blob_args`. Every blob
 * handed out matches its id; a missing one is an error naming it.
 */
export class ClientBlobSource {
  readonly #prefetched = new Map<string, { readonly index: number; readonly value: Uint8Array }>();
  readonly #verified = new Set<string>();
  readonly #fetched = new Map<string, Promise<Uint8Array>>();
  readonly #kv: KvChannel | undefined;
  /** Ids of every blob the client showed it holds (attached or answered). */
  readonly received = new Set<string>();

  constructor({
    prefetched,
    kv,
  }: {
    prefetched: readonly PreFetchedBlob[];
    kv: KvChannel | undefined;
  }) {
    this.#kv = kv;
    prefetched.forEach((blob, index) => {
      if (blob.id.length !== 32) {
        throw new ConnectError({
          code: "invalid_argument",
          message: `pre_fetched_blobs[${index}].id has ${blob.id.length} bytes, not 32`,
        });
      }
      const id = toHex(blob.id);
      if (!this.#prefetched.has(id)) this.#prefetched.set(id, { index, value: blob.value });
      this.received.add(id);
    });
  }

  /** Was this blob attached to the request? */
  hasPrefetched(id: string): boolean {
    return this.#prefetched.has(id);
  }

  /** The blob with this id (hex or bytes), from the attachments or the client's store. */
  get(id: string | Uint8Array, what = "blob"): Promise<Uint8Array> {
    const hex = typeof id === "string" ? id : toHex(id);
    const attached = this.#prefetched.get(hex);
    if (attached !== undefined) {
      if (!this.#verified.has(hex)) {
        if (toHex(sha256(attached.value)) !== hex) {
          return Promise.reject(
            new ConnectError({
              code: "invalid_argument",
              message: `pre_fetched_blobs[${attached.index}] does not match its id ${hex} (SHA-256 differs)`,
            }),
          );
        }
        this.#verified.add(hex);
      }
      return Promise.resolve(attached.value);
    }
    let pending = this.#fetched.get(hex);
    if (pending === undefined) {
      pending = this.#fetch(hex, what);
      this.#fetched.set(hex, pending);
      // A failed fetch may be retried by a later caller.
      pending.catch(() => this.#fetched.delete(hex));
    }
    return pending;
  }

  async #fetch(hex: string, what: string): Promise<Uint8Array> {
    if (this.#kv === undefined) {
      throw new ConnectError({
        code: "failed_precondition",
        message: `${what} ${hex} was not attached and cannot be fetched here`,
      });
    }
    const data = await this.#kv.getBlob(fromHex(hex));
    if (data === undefined) {
      throw new ConnectError({
        code: "failed_precondition",
        message: `${what} ${hex} is not in the editor's blob store`,
      });
    }
    if (toHex(sha256(data)) !== hex) {
      throw new ConnectError({
        code: "invalid_argument",
        message: `the editor answered ${what} ${hex} with bytes of another SHA-256`,
      });
    }
    this.received.add(hex);
    return data;
  }
}
