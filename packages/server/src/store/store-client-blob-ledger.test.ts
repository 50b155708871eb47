import type { ClientBlobLedger } from "@cursor/wire";
import { afterEach, describe, expect, it } from "vitest";
import type { GatewayStore } from "./gateway-store.js";
import { PostgresStore } from "./postgres-store.js";
import {
  createTestDatabase,
  postgresTestURL,
  postgresTitleSuffix,
} from "./postgres-test-database.js";
import type { TestDatabase } from "./postgres-test-database.js";
import { SqliteStore } from "./sqlite-store.js";
import { StoreClientBlobLedger } from "./store-client-blob-ledger.js";

/** Two "processes" (store instances) on one database, each with the wire's ledger on it. */
type TwoStores = { first: GatewayStore; second: GatewayStore; close(): Promise<void> };

const drivers: { name: string; skip: boolean; open(): Promise<TwoStores> }[] = [
  {
    name: "SQLite",
    skip: false,
    async open() {
      const store = new SqliteStore({ path: ":memory:" });
      return { first: store, second: store, close: () => store.close() };
    },
  },
  {
    name: `PostgreSQL${postgresTitleSuffix}`,
    skip: postgresTestURL === undefined,
    async open() {
      const database: TestDatabase = await createTestDatabase();
      const first = await PostgresStore.open({ url: database.url });
      const second = await PostgresStore.open({ url: database.url });
      return {
        first,
        second,
        async close() {
          await first.close();
          await second.close();
          await database.drop();
        },
      };
    },
  },
];

for (const driver of drivers) {
  describe.skipIf(driver.skip)(`StoreClientBlobLedger on ${driver.name}`, () => {
    let stores: TwoStores | undefined;
    afterEach(async () => {
      await stores?.close();
      stores = undefined;
    });

    it("is the wire's ClientBlobLedger: what one process recorded, another knows; per tenant", async () => {
      stores = await driver.open();
      const here: ClientBlobLedger = new StoreClientBlobLedger({
        store: stores.first,
        tenant: "t",
      });
      const there: ClientBlobLedger = new StoreClientBlobLedger({
        store: stores.second,
        tenant: "t",
      });
      const otherTenant = new StoreClientBlobLedger({ store: stores.second, tenant: "u" });
      await here.record({ conversationId: "c", blobIds: ["0a", "0b"] });
      expect([
        ...(await there.acknowledged({ conversationId: "c", blobIds: ["0a", "0c"] })),
      ]).toEqual(["0a"]);
      expect((await otherTenant.acknowledged({ conversationId: "c", blobIds: ["0a"] })).size).toBe(
        0,
      );
      expect((await there.acknowledged({ conversationId: "d", blobIds: ["0a"] })).size).toBe(0);
    });
  });
}
