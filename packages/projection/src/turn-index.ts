import { PositionIndex } from "@cursor/run";

/** What the index reads of a turn record (a `TurnRecord` has these fields). */
interface IndexedTurn {
  readonly eventId: string;
  readonly runId: string;
  readonly messageIds: readonly string[];
}

const none = -1;

/** A growing list of 32-bit integers (4 bytes each, in one typed array). */
class Int32List {
  #values = new Int32Array(16);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  get bytes(): number {
    return this.#values.byteLength;
  }

  at(index: number): number {
    return this.#values[index]!;
  }

  set(index: number, value: number): void {
    this.#values[index] = value;
  }

  push(value: number): void {
    if (this.#length === this.#values.length) {
      const grown = new Int32Array(Math.ceil(this.#values.length * 1.5));
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.#length] = value;
    this.#length += 1;
  }
}

/**
 * Look-up index of a turns array: positions of event ids, run ids and message ids. One index
 * serves a whole chain of arrays that extend each other (`appendTurns`), so recording a turn costs
 * O(turns it adds), not O(all turns); an array only trusts positions below its own length. A head
 * keeps its index for as long as its conversation is open: keys are not stored (each is read from
 * the turn it names, in the longest array of the chain), positions are 4 bytes each.
 */
export class TurnIndex {
  /** The longest array of the chain: where keys are read. */
  #turns: readonly IndexedTurn[];
  /** Event id → position of the first turn with it. */
  readonly #byEventId: PositionIndex;
  /** Run id → position of the first turn of that run; `#nextOfRun` links the run's others. */
  readonly #byRunId: PositionIndex;
  readonly #nextOfRun = new Int32List();
  /**
   * Message id → entry (the message ids of all turns, numbered in order): the entry's turn is
   * found in `#firstEntry` (entry number of each turn's first message id) by binary search.
   */
  readonly #byMessageId: PositionIndex;
  readonly #firstEntry = new Int32List();
  #entries = 0;

  constructor(turns: readonly IndexedTurn[]) {
    this.#turns = turns;
    this.#byEventId = new PositionIndex((position) => this.#turns[position]?.eventId);
    this.#byRunId = new PositionIndex((position) => this.#turns[position]?.runId);
    this.#byMessageId = new PositionIndex((entry) => this.#messageIdOf(entry));
    turns.forEach((turn, position) => this.#add(turn, position));
  }

  /** Length of the longest array of the chain: the only one that may extend the index. */
  get length(): number {
    return this.#nextOfRun.length;
  }

  /** Bytes of its tables (what the index holds beyond its objects). */
  get bytes(): number {
    return (
      this.#byEventId.bytes +
      this.#byRunId.bytes +
      this.#byMessageId.bytes +
      this.#nextOfRun.bytes +
      this.#firstEntry.bytes
    );
  }

  /** Indexes the turns `longer` adds to the longest array so far (which it must extend). */
  extend(longer: readonly IndexedTurn[]): void {
    const from = this.length;
    this.#turns = longer;
    for (let position = from; position < longer.length; position += 1) {
      this.#add(longer[position]!, position);
    }
  }

  /** Position of the first turn with this event id. */
  eventPosition(eventId: string): number | undefined {
    return this.#byEventId.get(eventId);
  }

  /** Positions of this run id's turns, in order. */
  runPositions(runId: string): number[] {
    const positions: number[] = [];
    const first = this.#byRunId.get(runId);
    for (let at = first ?? none; at !== none; at = this.#nextOfRun.at(at)) positions.push(at);
    return positions;
  }

  /** Position of the first turn naming this message id. */
  messagePosition(messageId: string): number | undefined {
    const entry = this.#byMessageId.get(messageId);
    return entry === undefined ? undefined : this.#turnOfEntry(entry);
  }

  #add(turn: IndexedTurn, position: number): void {
    // The first occurrence wins, so positions never move.
    if (!this.#byEventId.has(turn.eventId)) this.#byEventId.add(turn.eventId, position);
    this.#nextOfRun.push(none);
    const first = this.#byRunId.get(turn.runId);
    if (first === undefined) {
      this.#byRunId.add(turn.runId, position);
    } else {
      let last = first;
      while (this.#nextOfRun.at(last) !== none) last = this.#nextOfRun.at(last);
      this.#nextOfRun.set(last, position);
    }
    this.#firstEntry.push(this.#entries);
    turn.messageIds.forEach((id, offset) => {
      if (!this.#byMessageId.has(id)) this.#byMessageId.add(id, this.#entries + offset);
    });
    this.#entries += turn.messageIds.length;
  }

  #turnOfEntry(entry: number): number {
    // The last turn whose first entry is at most `entry` (turns without message ids share it).
    let low = 0;
    let high = this.#firstEntry.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (this.#firstEntry.at(middle) <= entry) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  #messageIdOf(entry: number): string | undefined {
    const position = this.#turnOfEntry(entry);
    return this.#turns[position]?.messageIds[entry - this.#firstEntry.at(position)];
  }
}
