import { afterAll, describe, expect, it } from "vitest";
import {
  postgresTestURL,
  postgresTitleSuffix,
  withDatabase,
} from "../store/postgres-test-database.js";
import { testCheckpointSecret, temporaryFolders } from "./e2e-environment.js";
import { e2eStores } from "./e2e-stores.js";
import { postgresMigrations } from "../store/postgres-migrations.js";
import {
  expectGatewayRefusal,
  killAllGatewayProcesses,
  startGatewayProcess,
} from "./gateway-process.js";

const latestVersion = Math.max(...postgresMigrations.map((m) => m.version));
const folders = temporaryFolders("store-startup");
const stores = e2eStores();
afterAll(async () => {
  await killAllGatewayProcesses();
  await stores.dropAll();
  folders.removeAll();
});

const password = "pw-never-shown-0123456789";

describe("`serve` and the database URL", () => {
  it("refuses a URL that is not PostgreSQL's, or one without the shared checkpoint secret, without showing the password", async () => {
    const wrong = await expectGatewayRefusal({
      CURSOR_GATEWAY_PROVIDER: "simulated",
      CURSOR_GATEWAY_DATA_DIR: folders.create(),
      CURSOR_GATEWAY_DATABASE_URL: `mysql://gateway:${password}@db.internal/gateway`,
      CURSOR_GATEWAY_CHECKPOINT_SECRET: testCheckpointSecret,
    });
    expect(wrong.exit).toEqual({ code: 2, signal: null });
    expect(wrong.output).toContain(
      "CURSOR_GATEWAY_DATABASE_URL: a postgresql:// (or postgres://) URL, not mysql://",
    );
    const secretless = await expectGatewayRefusal({
      CURSOR_GATEWAY_PROVIDER: "simulated",
      CURSOR_GATEWAY_DATA_DIR: folders.create(),
      CURSOR_GATEWAY_DATABASE_URL: `postgresql://gateway:${password}@db.internal/gateway`,
    });
    expect(secretless.exit).toEqual({ code: 2, signal: null });
    expect(secretless.output).toContain(
      "CURSOR_GATEWAY_CHECKPOINT_SECRET must be set with CURSOR_GATEWAY_DATABASE_URL",
    );
    for (const refusal of [wrong, secretless]) expect(refusal.output).not.toContain(password);
  });

  it("names the server it cannot reach, in one line, without the password", async () => {
    const unreachable = await expectGatewayRefusal({
      CURSOR_GATEWAY_PROVIDER: "simulated",
      CURSOR_GATEWAY_DATA_DIR: folders.create(),
      // Nothing listens on port 1.
      CURSOR_GATEWAY_DATABASE_URL: `postgresql://gateway:${password}@127.0.0.1:1/gateway`,
      CURSOR_GATEWAY_CHECKPOINT_SECRET: testCheckpointSecret,
    });
    expect(unreachable.exit).toEqual({ code: 1, signal: null });
    expect(unreachable.output).toMatch(
      /^cursor-gateway: cannot connect to PostgreSQL at postgresql:\/\/gateway@127\.0\.0\.1:1\/gateway: /,
    );
    expect(unreachable.output.trim().split("\n")).toHaveLength(1);
    expect(unreachable.output).not.toContain(password);
  });
});

describe.skipIf(postgresTestURL === undefined)(
  `\`serve\` on PostgreSQL${postgresTitleSuffix}`,
  () => {
    it("says which database it runs on (no password), and refuses one a newer gateway migrated", async () => {
      const store = await stores.create({ kind: "postgresql", dataDir: folders.create() });
      const environment = {
        CURSOR_GATEWAY_PROVIDER: "simulated",
        CURSOR_GATEWAY_DATA_DIR: store.dataDir,
        ...store.environment,
      };
      const url = new URL(store.environment.CURSOR_GATEWAY_DATABASE_URL!);
      const gateway = await startGatewayProcess(environment);
      expect(gateway.output()).toContain(
        `, store postgresql://${url.username}@${url.host}${url.pathname}, `,
      );
      if (url.password !== "") expect(gateway.output()).not.toContain(url.password);
      expect(await gateway.stop()).toEqual({ code: 0, signal: null });

      await withDatabase(url.toString(), (client) =>
        client.query(
          "INSERT INTO schema_migrations (version, description) VALUES (99, 'from the future')",
        ),
      );
      const before = await store.dump();
      const refusal = await expectGatewayRefusal(environment);
      expect(refusal.exit).toEqual({ code: 1, signal: null });
      expect(refusal.output).toContain(
        `has schema version 99, newer than this gateway knows (${latestVersion}); upgrade the gateway`,
      );
      expect(await store.dump()).toBe(before);
    });
  },
);
