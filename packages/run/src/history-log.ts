import { canonicalJson, sha256Hex } from "./canonical-json.js";
import { canonicalMessageSchema } from "./canonical-message.js";
import type {
  AssistantMessage,
  CanonicalMessage,
  RequestContextMessage,
  ToolCall,
} from "./canonical-message.js";
import { HistoryConflictError, InvalidHistoryError } from "./errors.js";
import { DigestTable } from "./digest-table.js";
import { PositionIndex } from "./position-index.js";
import { rememberCanonicalJson } from "./recent-canonical-json.js";

/** SHA-256 of a message's canonical JSON: its content address (also the checkpoint blob id). */
export function messageDigest(message: CanonicalMessage): string {
  return knownDigests.get(message) ?? sha256Hex(canonicalJson(message));
}

/**
 * Digests of the messages this module validated and no log holds yet: each is a deep-frozen
 * copy made by the schema (or decoded from bytes whose hash was checked), so its content, and
 * with it its digest, can never change. Handing one on (the plan's messages to the model loop,
 * the loop's batch to `append`, a store's decoded rows to a new log) costs neither a parse nor
 * a hash: every message is hashed once on its way in. A log that commits a message takes its
 * digest over (packed in its `DigestTable`, read with `digestAt`) and drops the entry here: an
 * open conversation pays no memo entry per message it holds.
 */
const knownDigests = new WeakMap<object, string>();

/**
 * The digest of a message this module validated (or decoded from verified bytes) that no log
 * holds yet, if `value` is one: its content address, known without a hash. A message a log
 * holds has its digest there (`HistoryLog.digestAt`); encoders that have the log use that.
 */
export function knownMessageDigest(value: unknown): string | undefined {
  return typeof value === "object" && value !== null ? knownDigests.get(value) : undefined;
}

/**
 * Decodes a message read back from storage: `bytes` must be the message's canonical JSON and
 * hash to `digest` (its content address). Returns the validated, frozen message; a `HistoryLog`
 * given it does not parse or hash it again. Throws `InvalidHistoryError` when the bytes are not
 * what the digest names, not canonical JSON, or not a valid message.
 */
export function decodeCanonicalMessage({
  bytes,
  digest,
}: {
  bytes: Uint8Array;
  digest: string;
}): CanonicalMessage {
  if (sha256Hex(bytes) !== digest) {
    throw new InvalidHistoryError({ message: `blob ${digest} does not match its content` });
  }
  const text = textDecoder.decode(bytes);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InvalidHistoryError({ message: `blob ${digest} is not JSON`, cause: error });
  }
  const parsed = canonicalMessageSchema.safeParse(json);
  // Canonical bytes are what the digest covers: anything else would make a second address.
  if (!parsed.success || canonicalJson(parsed.data) !== text) {
    throw new InvalidHistoryError({
      message: `blob ${digest} is not a valid canonical message`,
      ...(parsed.success ? {} : { cause: parsed.error }),
    });
  }
  // The schema's output and the parsed bytes are the same value (the canonical check above), but
  // `JSON.parse` builds it compactly (no spare array capacity, properties in the object): a
  // history holds thousands of these, so the compact one is kept.
  const message = frozenCompact(json) as CanonicalMessage;
  knownDigests.set(message, digest);
  return message;
}

const textDecoder = new TextDecoder();

/** The digest of an empty epoch; each append chains `sha256(previous ‖ messageDigest)`. */
export function emptyHeadDigest(epoch: number): string {
  return sha256Hex(`cursor.history.epoch:${epoch}`);
}

export function chainHeadDigest(previous: string, messageDigestHex: string): string {
  return sha256Hex(`${previous}${messageDigestHex}`);
}

export interface PendingToolCall extends ToolCall {
  readonly assistantId: string;
}

export interface AppendResult {
  /** Messages that were new, in order: validated, frozen copies (what the log stores). */
  readonly appended: readonly CanonicalMessage[];
  /** Messages that were already present with identical content (idempotent re-append). */
  readonly unchanged: readonly CanonicalMessage[];
  /**
   * Content addresses of `appended`, in order, computed once here: what a store writes the
   * messages under (blob ids). Nobody needs to hash them again.
   */
  readonly digests: readonly string[];
  /** The epoch's head digest with `appended` (for `check`: once they would be appended). */
  readonly headDigest: string;
  /** Messages in the epoch with `appended`. */
  readonly length: number;
}

/**
 * The canonical, append-only history of one conversation's current epoch. `append` is the only
 * mutation; `startEpoch` is the one explicit operation that replaces history (compaction).
 * Messages are validated and deep-frozen on the way in, so nothing handed out can be edited.
 */
export class HistoryLog {
  #epoch: number;
  #messages: CanonicalMessage[] = [];
  /** The messages' digests, packed (32 bytes each): hex is made when one is asked for. */
  #digests = new DigestTable();
  /**
   * Message id → its index (its digest is `#digests.at(index)`), and event id → index. Position
   * indexes, not Maps: they hold an entry per message for as long as the conversation is open.
   * Their keys are read from `#messages`, the array `startEpoch` hands over with them.
   */
  #byId = new PositionIndex((index) => this.#messages[index]?.id);
  #byEventId = new PositionIndex((index) => {
    const message = this.#messages[index];
    return message !== undefined && "eventId" in message ? message.eventId : undefined;
  });
  /**
   * Call id → index of the tool result that answered it. With `#pendingCalls` it says which call
   * ids the epoch has used (every call of the epoch is pending or answered by one result): a
   * position index instead of a Set holding every call id.
   */
  #byResultCallId = new PositionIndex((index) => {
    const message = this.#messages[index];
    return message?.kind === "tool-result" ? message.callId : undefined;
  });
  #head: string;
  #pendingCalls = new Map<string, PendingToolCall>();
  #latestRequestContextIndex = -1;
  /**
   * Whether committing a message takes its digest over from `knownDigests` (see there). Not for
   * `checkEpoch`'s throwaway log: the messages it validated are handed on, and the log that
   * then commits them (`startEpoch`) must still find their digests.
   */
  #takesDigests = true;
  /**
   * The log a new epoch's log is built from (`checkEpoch`, `startEpoch`): the messages the
   * replacement keeps are that log's, and their digests are read there instead of hashed again.
   */
  #parent: HistoryLog | undefined;

  constructor({
    epoch = 0,
    messages = [],
  }: { epoch?: number; messages?: readonly unknown[] } = {}) {
    if (!Number.isInteger(epoch) || epoch < 0) {
      throw new InvalidHistoryError({
        message: `epoch must be a non-negative integer, got ${epoch}`,
      });
    }
    this.#epoch = epoch;
    this.#head = emptyHeadDigest(epoch);
    this.append(messages);
  }

  get epoch(): number {
    return this.#epoch;
  }
  get length(): number {
    return this.#messages.length;
  }
  /** Read-only view of the current epoch's messages, oldest first. */
  get messages(): readonly CanonicalMessage[] {
    return this.#messages;
  }
  /** Chained SHA-256 over every message of the epoch; equal heads have equal histories. */
  get headDigest(): string {
    return this.#head;
  }

  has(messageId: string): boolean {
    return this.#byId.has(messageId);
  }
  get(messageId: string): CanonicalMessage | undefined {
    const index = this.#byId.get(messageId);
    return index === undefined ? undefined : this.#messages[index];
  }
  findByEventId(eventId: string): CanonicalMessage | undefined {
    const index = this.#byEventId.get(eventId);
    return index === undefined ? undefined : this.#messages[index];
  }
  /** The digest of the message at `index` (its content address). */
  digestAt(index: number): string | undefined {
    return this.#digests.at(index);
  }
  /**
   * The digests of `messages`, in order: a new array on each call (the log holds them packed),
   * so a caller that needs a part of them asks `digestRange` for it.
   */
  get digests(): readonly string[] {
    return this.#digests.slice();
  }
  /** The digests of `messages.slice(start, end)`, in order. */
  digestRange(start = 0, end = this.#digests.length): string[] {
    return this.#digests.slice(start, end);
  }
  latestRequestContext(): RequestContextMessage | undefined {
    const message = this.#messages[this.#latestRequestContextIndex];
    return message?.kind === "request-context" ? message : undefined;
  }
  /** Tool calls of the epoch that have no result yet, in call order. */
  pendingToolCalls(): readonly PendingToolCall[] {
    return [...this.#pendingCalls.values()];
  }

  /**
   * Appends messages atomically: every message is validated against the history (and the ones
   * before it in the batch) before any is stored. Re-appending an identical message is a no-op;
   * reusing an id or event id with different content throws `HistoryConflictError`.
   */
  append(input: unknown | readonly unknown[]): AppendResult {
    const batch = Array.isArray(input) ? input : [input];
    const plan = this.#plan(batch);
    for (const { message, digest } of plan.toAppend) this.#commit(message, digest);
    return plan.result;
  }

  /**
   * Would `append(batch)` succeed? Throws the same errors without changing anything; the result
   * says what `append` would do (the new messages, their digests, the head after them). Lets a
   * store validate a turn, and write it with these digests, before the log moves.
   */
  check(batch: readonly unknown[]): AppendResult {
    return this.#plan(batch).result;
  }

  /**
   * Validates `replacement` as the history of epoch `epoch + 1` without changing anything: the
   * result lists its messages (validated, frozen), their digests and its head digest, so a store
   * can persist the new epoch before `startEpoch` switches to it.
   */
  checkEpoch(replacement: readonly unknown[]): AppendResult {
    const next = new HistoryLog({ epoch: this.#epoch + 1 });
    next.#takesDigests = false;
    next.#parent = this;
    next.append(replacement);
    return next.#result();
  }

  /**
   * Compaction: replaces the history with `replacement` as epoch `epoch + 1`. The only way to
   * remove or change earlier messages; the replacement must itself be a valid history.
   */
  startEpoch(replacement: readonly unknown[]): AppendResult {
    const next = new HistoryLog({ epoch: this.#epoch + 1 });
    next.#parent = this;
    next.append(replacement);
    next.#parent = undefined;
    this.#epoch = next.#epoch;
    this.#messages = next.#messages;
    this.#digests = next.#digests;
    this.#byId = next.#byId;
    this.#byEventId = next.#byEventId;
    this.#head = next.#head;
    this.#pendingCalls = next.#pendingCalls;
    this.#byResultCallId = next.#byResultCallId;
    this.#latestRequestContextIndex = next.#latestRequestContextIndex;
    return this.#result();
  }

  /**
   * `raw` with its digest when no parse or hash is needed: a message on its way in
   * (`knownDigests`), or one this log (or the log its epoch is built from) holds.
   */
  #validated(raw: unknown): { message: CanonicalMessage; digest: string } | undefined {
    if (typeof raw !== "object" || raw === null) return undefined;
    const parent = this.#parent;
    const digest =
      knownDigests.get(raw) ??
      this.#heldDigest(raw) ??
      (parent === undefined ? undefined : parent.#heldDigest(raw));
    return digest === undefined ? undefined : { message: raw as CanonicalMessage, digest };
  }

  /** The digest of `raw` if this very object is one of this log's messages. */
  #heldDigest(raw: object): string | undefined {
    const id = (raw as { id?: unknown }).id;
    if (typeof id !== "string") return undefined;
    const index = this.#byId.get(id);
    return index !== undefined && this.#messages[index] === raw
      ? this.#digests.at(index)
      : undefined;
  }

  /**
   * A copy of this log (same epoch, messages, digests and head) that moves on its own from here:
   * nothing is validated or hashed again (the digests are copied from this log), so a caller
   * can try a change on the copy (a compaction that summarises a turn's results before they are
   * committed) and keep or drop it. The copy leaves the digests of the messages it commits in
   * `knownDigests`: the log that commits them for good does not hash them again either.
   */
  fork(): HistoryLog {
    const copy = new HistoryLog({ epoch: this.#epoch });
    copy.#takesDigests = false;
    for (let index = 0; index < this.#messages.length; index += 1) {
      copy.#hold(this.#messages[index]!, this.#digests.at(index)!);
    }
    copy.#head = this.#head;
    return copy;
  }

  #result(): AppendResult {
    return {
      appended: this.#messages.slice(),
      unchanged: [],
      digests: this.#digests.slice(),
      headDigest: this.#head,
      length: this.#messages.length,
    };
  }

  #plan(batch: readonly unknown[]): {
    toAppend: { message: CanonicalMessage; digest: string }[];
    result: AppendResult;
  } {
    const toAppend: { message: CanonicalMessage; digest: string }[] = [];
    const unchanged: CanonicalMessage[] = [];
    const batchIds = new Map<string, string>();
    const batchEventIds = new Map<string, string>();
    const pending = new Map(this.#pendingCalls);
    for (const raw of batch) {
      const { message, digest } = this.#validated(raw) ?? validate(raw);
      const eventId = "eventId" in message ? message.eventId : undefined;
      const existing = this.#byId.get(message.id);
      const existingDigest =
        existing === undefined ? batchIds.get(message.id) : this.#digests.at(existing);
      if (existingDigest !== undefined) {
        if (existingDigest !== digest) {
          throw new HistoryConflictError({
            message: `message ${message.id} already exists with different content`,
            messageId: message.id,
            ...(eventId === undefined ? {} : { eventId }),
          });
        }
        unchanged.push(existing === undefined ? message : this.#messages[existing]!);
        continue;
      }
      if (eventId !== undefined && (this.#byEventId.has(eventId) || batchEventIds.has(eventId))) {
        throw new HistoryConflictError({
          message: `event ${eventId} already exists as another message`,
          messageId: message.id,
          eventId,
        });
      }
      this.#checkToolRound(message, pending);
      batchIds.set(message.id, digest);
      if (eventId !== undefined) batchEventIds.set(eventId, message.id);
      toAppend.push({ message, digest });
    }
    let head = this.#head;
    for (const entry of toAppend) head = chainHeadDigest(head, entry.digest);
    return {
      toAppend,
      result: {
        appended: toAppend.map((entry) => entry.message),
        unchanged,
        digests: toAppend.map((entry) => entry.digest),
        headDigest: head,
        length: this.#messages.length + toAppend.length,
      },
    };
  }

  /**
   * Tool rounds stay well-formed: a result answers a pending call of this epoch exactly once, and
   * nothing else is appended while calls are pending (callers close abandoned calls first).
   */
  #checkToolRound(message: CanonicalMessage, pending: Map<string, PendingToolCall>): void {
    if (message.kind === "tool-result") {
      const call = pending.get(message.callId);
      if (call === undefined) {
        throw new InvalidHistoryError({
          message: `tool result ${message.id} answers unknown or already answered call ${message.callId}`,
          messageId: message.id,
        });
      }
      if (call.name !== message.name) {
        throw new InvalidHistoryError({
          message: `tool result ${message.id} names tool ${message.name} but call ${message.callId} was ${call.name}`,
          messageId: message.id,
        });
      }
      pending.delete(message.callId);
      return;
    }
    if (pending.size > 0) {
      throw new InvalidHistoryError({
        message: `cannot append ${message.kind} message ${message.id} while tool calls are pending: ${[
          ...pending.keys(),
        ].join(", ")}`,
        messageId: message.id,
      });
    }
    if (message.kind === "assistant") {
      checkToolCalls(message);
      for (const call of message.toolCalls) {
        if (this.#callUsed(call.callId) || pending.has(call.callId)) {
          throw new InvalidHistoryError({
            message: `assistant ${message.id} reuses tool call id ${call.callId}`,
            messageId: message.id,
          });
        }
        pending.set(call.callId, { ...call, assistantId: message.id });
      }
    }
  }

  /** Has a committed message of this epoch made a call with this id (answered or not)? */
  #callUsed(callId: string): boolean {
    return this.#pendingCalls.has(callId) || this.#byResultCallId.has(callId);
  }

  #commit(message: CanonicalMessage, digest: string): void {
    this.#hold(message, digest);
    this.#head = chainHeadDigest(this.#head, digest);
    // The log holds the digest from here on (packed); the memo entry would only cost memory.
    if (this.#takesDigests) knownDigests.delete(message);
  }

  /** Stores a message and its digest, and indexes it (everything a commit does but the head). */
  #hold(message: CanonicalMessage, digest: string): void {
    const index = this.#messages.length;
    this.#messages.push(message);
    this.#digests.push(digest);
    this.#byId.add(message.id, index);
    if ("eventId" in message) this.#byEventId.add(message.eventId, index);
    if (message.kind === "request-context") this.#latestRequestContextIndex = index;
    if (message.kind === "assistant") {
      for (const call of message.toolCalls) {
        this.#pendingCalls.set(call.callId, Object.freeze({ ...call, assistantId: message.id }));
      }
    }
    if (message.kind === "tool-result") {
      this.#pendingCalls.delete(message.callId);
      this.#byResultCallId.add(message.callId, index);
    }
  }
}

/** Parses a message with the schema into a frozen copy and hashes it, once. */
function validate(raw: unknown): { message: CanonicalMessage; digest: string } {
  const parsed = canonicalMessageSchema.safeParse(raw);
  if (!parsed.success) {
    const id = typeof raw === "object" && raw !== null && "id" in raw ? String(raw.id) : undefined;
    throw new InvalidHistoryError({
      message: `invalid canonical message${id ? ` ${id}` : ""}: ${parsed.error.issues
        .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
        .join("; ")}`,
      ...(id === undefined ? {} : { messageId: id }),
      cause: parsed.error,
    });
  }
  const canonical = canonicalJson(parsed.data);
  // A compact copy of the value (the schema's own is built property by property, with spare
  // array capacity): the history keeps it, thousands of times over.
  const message = frozenCompact(JSON.parse(canonical)) as CanonicalMessage;
  const digest = sha256Hex(canonical);
  knownDigests.set(message, digest);
  // The store and the checkpoint write these very bytes next (`recentCanonicalJson`).
  rememberCanonicalJson(message, canonical);
  return { message, digest };
}

/**
 * The message schema's literal values longer than 10 characters: `JSON.parse` shares the string
 * of a short value but makes a copy of a longer one for every message (a `kind` of
 * `"tool-result"` or `"request-context"`, a `runtimeKind`), so the log keeps these instead.
 */
const sharedLiterals = new Map<string, string>(
  ["request-context", "tool-result", "background-completion", "injected-context"].map((literal) => [
    literal,
    literal,
  ]),
);
const longestSharedLiteral = Math.max(...[...sharedLiterals.keys()].map((key) => key.length));

const emptyObject = Object.freeze({});
const emptyArray = Object.freeze([]);

/**
 * Deep-freezes a value fresh from `JSON.parse`, every empty object and array in it replaced by
 * one shared frozen empty one (an assistant message's `replay: {}`, `toolCalls: []`: one
 * allocation each per message otherwise, thousands in a long history).
 */
function frozenCompact(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    if (value.length === 0) return emptyArray;
    for (let index = 0; index < value.length; index += 1) {
      const item = frozenCompact(value[index]);
      if (item !== value[index]) value[index] = item;
    }
    return Object.freeze(value);
  }
  const record = value as Record<string, unknown>;
  let empty = true;
  for (const key of Object.keys(record)) {
    empty = false;
    const raw = record[key];
    // Only strings of a literal's length are looked up (hashing a long text would cost its length).
    const literal =
      typeof raw === "string" && raw.length > 10 && raw.length <= longestSharedLiteral
        ? sharedLiterals.get(raw)
        : undefined;
    const item = literal ?? frozenCompact(raw);
    // Defined, not assigned: a key named `__proto__` stays an own property. A shared literal
    // equals the value it replaces, so it is always defined (`!==` cannot tell the copies apart).
    if (literal !== undefined || item !== raw) {
      Object.defineProperty(record, key, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return empty ? emptyObject : Object.freeze(record);
}

function checkToolCalls(message: AssistantMessage): void {
  const indexes = new Set<number>();
  const callIds = new Set<string>();
  for (const call of message.toolCalls) {
    if (indexes.has(call.index) || callIds.has(call.callId)) {
      throw new InvalidHistoryError({
        message: `assistant ${message.id} has duplicate tool call index ${call.index} or id ${call.callId}`,
        messageId: message.id,
      });
    }
    indexes.add(call.index);
    callIds.add(call.callId);
  }
}
