import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** Writes between two checkpoint requests (and before the worker is started at all). */
const writesPerCheckpoint = 32;
/** After the last write, the WAL is checkpointed once more when the store has been quiet this long. */
const quietCheckpointMs = 1_000;
/**
 * WAL frames (pages) past which the worker waits for a moment without writers to restart the
 * WAL from its start: a store written without pause never gets the quiet moment in which SQLite
 * restarts it by itself, and its WAL file would only grow.
 */
const restartFrames = 16_384;

// The worker: its own connection to the same file, checkpointing on request. A `PASSIVE`
// checkpoint copies WAL pages into the database and syncs it without blocking the gateway's
// writes; once everything is copied, SQLite restarts the WAL at the next write by itself.
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.module);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma("busy_timeout = 5000");
parentPort.on("message", (message) => {
  if (message !== "checkpoint") return;
  let [result] = db.pragma("wal_checkpoint(PASSIVE)");
  if (result.log >= workerData.restartFrames && result.checkpointed === result.log) {
    [result] = db.pragma("wal_checkpoint(RESTART)");
  }
  parentPort.postMessage(result);
});
`;

/**
 * Moves SQLite's WAL checkpoints off the gateway's thread. With automatic checkpoints, every
 * thousandth page written makes one commit copy the WAL into the database file and sync it, on
 * the event loop: about two thirds of a small commit's cost on average, and a stall of
 * milliseconds for the commit that pays (measured: 114 → 38 µs a 2 kB insert). Here the main
 * connection never checkpoints (`wal_autocheckpoint = 0`); a worker thread with a connection of
 * its own does, every 32 writes and once the store is quiet for a second. Started on the first
 * such request, so a store that is barely written never starts it. If the worker fails, the main
 * connection checkpoints automatically again, as SQLite does by default.
 */
export class WalCheckpointer {
  readonly #path: string;
  readonly #fallBack: () => void;
  #worker: Worker | undefined;
  #writes = 0;
  #quiet: NodeJS.Timeout | undefined;
  #failed = false;
  #closed = false;

  constructor({
    path,
    fallBack,
  }: {
    /** The database file (not `:memory:`). */
    path: string;
    /** Turns the main connection's automatic checkpoints back on. */
    fallBack: () => void;
  }) {
    this.#path = path;
    this.#fallBack = fallBack;
  }

  /** A write was committed on the main connection. */
  noteWrite(): void {
    if (this.#failed || this.#closed) return;
    this.#writes += 1;
    if (this.#writes >= writesPerCheckpoint) this.#request();
    clearTimeout(this.#quiet);
    this.#quiet = setTimeout(() => this.#request(), quietCheckpointMs);
    this.#quiet.unref();
  }

  /** Stops the worker (its connection closes; the store's own close checkpoints the rest). */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#quiet);
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker !== undefined) await worker.terminate();
  }

  #request(): void {
    this.#writes = 0;
    if (this.#failed || this.#closed) return;
    this.#worker ??= this.#start();
    this.#worker?.postMessage("checkpoint");
  }

  #start(): Worker | undefined {
    try {
      const worker = new Worker(workerSource, {
        eval: true,
        workerData: {
          module: createRequire(import.meta.url).resolve("better-sqlite3"),
          path: this.#path,
          restartFrames,
        },
      });
      // The gateway's lifetime is its own: the worker never keeps the process running.
      worker.unref();
      worker.once("error", () => this.#fail());
      worker.once("exit", () => {
        if (!this.#closed) this.#fail();
      });
      return worker;
    } catch {
      this.#fail();
      return undefined;
    }
  }

  #fail(): void {
    if (this.#failed || this.#closed) return;
    this.#failed = true;
    this.#worker = undefined;
    this.#fallBack();
  }
}
