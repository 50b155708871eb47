import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStore } from "./sqlite-store.js";
import { WalCheckpointer } from "./wal-checkpointer.js";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const path = mkdtempSync(join(tmpdir(), "cursor-wal-"));
  folders.push(path);
  return path;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("WalCheckpointer", () => {
  it("copies the WAL into the database file on a thread of its own, never on the writer's", async () => {
    const path = join(folder(), "gateway.sqlite");
    const store = new SqliteStore({ path });
    try {
      // The writer's connection never checkpoints by itself.
      const probe = new Database(path, { readonly: true });
      const sizeBefore = statSync(path).size;
      for (let index = 0; index < 200; index += 1) {
        await store.acquireRun({
          tenant: "t",
          conversationId: `c-${index}-${"x".repeat(1_500)}`,
          runId: "r",
          leaseMs: 60_000,
        });
      }
      // The rows reached the database file itself: the worker checkpointed them.
      await until(() => statSync(path).size > sizeBefore + 200 * 1_500, "the checkpoint");
      expect(
        probe.prepare("SELECT COUNT(*) AS n FROM run_locks WHERE run_id = 'r'").get() as {
          n: number;
        },
      ).toEqual({ n: 200 });
      probe.close();
    } finally {
      await store.close();
    }
  });

  it("turns the writer's automatic checkpoints back on when the worker cannot run", async () => {
    let fellBack = 0;
    const checkpointer = new WalCheckpointer({
      // No such file: the worker's connection fails at once.
      path: join(folder(), "missing", "gateway.sqlite"),
      fallBack: () => (fellBack += 1),
    });
    try {
      for (let index = 0; index < 40; index += 1) checkpointer.noteWrite();
      await until(() => fellBack > 0, "the fallback");
      // Once: later writes do not start it again.
      for (let index = 0; index < 40; index += 1) checkpointer.noteWrite();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(fellBack).toBe(1);
    } finally {
      await checkpointer.close();
    }
  });

  it("a store that is barely written starts no worker, and closes cleanly either way", async () => {
    const path = join(folder(), "gateway.sqlite");
    const store = new SqliteStore({ path });
    await store.acquireRun({ tenant: "t", conversationId: "c", runId: "r", leaseMs: 1_000 });
    await store.close();
    // Reopened: the row is there (the close checkpointed what the WAL held).
    const again = new SqliteStore({ path });
    expect(
      await again.acquireRun({ tenant: "t", conversationId: "c", runId: "r2", leaseMs: 1_000 }),
    ).toBe(false);
    await again.close();
  });
});
