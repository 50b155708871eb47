import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openGatewayStore } from "./open-gateway-store.js";
import { lockSqliteOwner } from "./sqlite-owner-lock.js";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
function folder(): string {
  const path = mkdtempSync(join(tmpdir(), "sqlite-owner-"));
  folders.push(path);
  return path;
}

describe("lockSqliteOwner", () => {
  it("one holder at a time; released, it can be taken again", () => {
    const path = join(folder(), "gateway.sqlite");
    const first = lockSqliteOwner({ path, waitMs: 0 });
    expect(first.held).toBe(true);
    expect(lockSqliteOwner({ path, waitMs: 0 })).toEqual({ held: false, reason: "in-use" });
    if (first.held) first.lock.release();
    const again = lockSqliteOwner({ path, waitMs: 0 });
    expect(again.held).toBe(true);
    if (again.held) {
      again.lock.release();
      // Releasing twice is harmless.
      again.lock.release();
    }
  });
});

describe("openGatewayStore on SQLite", () => {
  it("refuses a second store on the same data folder until the first is closed", async () => {
    const dataDir = folder();
    const first = await openGatewayStore({ dataDir, runLeaseMs: 30_000 });
    await expect(openGatewayStore({ dataDir, runLeaseMs: 30_000 })).rejects.toMatchObject({
      name: "StartupError",
      reason: "data-dir-in-use",
      message: `the data folder ${dataDir} is in use by another gateway process (its SQLite store serves one process); stop that process or set CURSOR_GATEWAY_DATA_DIR to another folder (several processes share a PostgreSQL store: CURSOR_GATEWAY_DATABASE_URL)`,
    });
    await first.close();
    const second = await openGatewayStore({ dataDir, runLeaseMs: 30_000 });
    await second.close();
  });
});
