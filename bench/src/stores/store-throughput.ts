import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "pg";
import { benchCheckpointSecret } from "../harness/gateway-harness.js";
import { FakeProviderProcess } from "../overhead/fake-provider-process.js";
import { quantile } from "../stats.js";
import { GatewayProcess } from "./gateway-process.js";

/** One store set-up under the load. */
export type StoreSetup = "sqlite-1" | "postgresql-1" | "postgresql-2";

export const storeSetupLabels: Record<StoreSetup, string> = {
  "sqlite-1": "SQLite, 1 process",
  "postgresql-1": "PostgreSQL, 1 process",
  "postgresql-2": "PostgreSQL, 2 processes (every turn on the other one)",
};

export interface StoreRow {
  readonly setup: StoreSetup;
  readonly processes: number;
  /** Measured `POST /v1/runs` (one provider call each). */
  readonly requests: number;
  /** Completed requests per second over the whole load. */
  readonly requestsPerSecond: number;
  readonly gatewayP50Ms: number;
  readonly gatewayP95Ms: number;
  /** The same provider bodies sent straight to the fake provider at the same concurrency. */
  readonly directP50Ms: number;
  readonly directP95Ms: number;
  readonly directRequestsPerSecond: number;
  /** Requests that did not complete (not measured). */
  readonly failures: readonly string[];
}

export interface StoreResult {
  readonly clients: number;
  readonly turns: number;
  readonly rows: readonly StoreRow[];
  /** Why the PostgreSQL rows are missing, when they are. */
  readonly postgresSkipped?: string;
  /** The PostgreSQL server and its durability settings (timings depend on them). */
  readonly postgres?: {
    readonly version: string;
    readonly fsync: string;
    readonly synchronousCommit: string;
  };
}

/** Where the bench's databases are created: a role that may CREATE DATABASE. */
export function benchDatabaseURL(
  environment: Record<string, string | undefined>,
): string | undefined {
  const url =
    environment.CURSOR_GATEWAY_BENCH_DATABASE_URL?.trim() ||
    environment.CURSOR_GATEWAY_TEST_DATABASE_URL?.trim();
  return url === undefined || url === "" ? undefined : url;
}

export const noDatabaseReason =
  'no PostgreSQL server: set CURSOR_GATEWAY_BENCH_DATABASE_URL (or CURSOR_GATEWAY_TEST_DATABASE_URL; `eval "$(scripts/start-test-postgres.sh)"` starts a throwaway one) to measure it';

/** A user turn with a small request context: the same load on every set-up. */
function turnBody(conversationId: string, turn: number): Record<string, unknown> {
  return {
    conversationId,
    runId: `run-${turn}`,
    mode: "agent",
    timestamp: `2026-11-29T11:${String(turn % 60).padStart(2, "0")}:00+01:00`,
    action: {
      type: "user-message",
      message: { id: `msg-${turn}`, text: `Question ${turn}: what does module ${turn} do?` },
    },
    requestContext: {
      rules: [
        { name: "style", path: ".cursor/rules/style.mdc", content: "Prefer small functions." },
      ],
      env: { os: "linux 6.1", shell: "bash", workspacePaths: ["/w"], timeZone: "UTC" },
    },
  };
}

async function timedPost(
  url: string,
  body: unknown,
): Promise<{ ms: number; ok: boolean; detail: string }> {
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer bench-key" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  const ok =
    response.ok && (!text.includes("event: run.ended") || text.includes('"reason":"completed"'));
  return { ms, ok, detail: ok ? "" : `${response.status} ${text.slice(-300)}` };
}

/** Runs `work(client)` for `clients` workers at once; the wall time of all of them. */
async function concurrently(
  clients: number,
  work: (client: number) => Promise<void>,
): Promise<number> {
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, (_, client) => work(client)));
  return (performance.now() - started) / 1000;
}

async function createDatabase(adminURL: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `cgw_bench_${randomBytes(5).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new Client({ connectionString: adminURL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(adminURL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

async function serverSettings(url: string): Promise<NonNullable<StoreResult["postgres"]>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const show = async (name: string) =>
      (await client.query<Record<string, string>>(`SHOW ${name}`)).rows[0]![name]!;
    return {
      version: await show("server_version"),
      fsync: await show("fsync"),
      synchronousCommit: await show("synchronous_commit"),
    };
  } finally {
    await client.end();
  }
}

/**
 * Part 6: the stores under one load. `clients` conversations at once, each `turns` user turns
 * (one provider call each, the fake provider in its own process answering at once), through
 * real `cursor-gateway serve` processes: SQLite with one process, PostgreSQL with one, and
 * PostgreSQL with two where every turn of a conversation goes to the other process than the one
 * before (the worst case for the processes' head caches: each turn reloads the head). After each
 * set-up the provider bodies it produced are sent again straight to the fake provider at the same
 * concurrency: the floor its latency is compared with.
 */
export async function measureStores({
  clients,
  turns,
  databaseURL,
  onProgress,
}: {
  clients: number;
  turns: number;
  databaseURL: string | undefined;
  onProgress?: (done: number, total: number) => void;
}): Promise<StoreResult> {
  const setups: StoreSetup[] =
    databaseURL === undefined ? ["sqlite-1"] : ["sqlite-1", "postgresql-1", "postgresql-2"];
  const fake = await FakeProviderProcess.start();
  const rows: StoreRow[] = [];
  try {
    for (const [index, setup] of setups.entries()) {
      onProgress?.(index, setups.length);
      rows.push(await measureSetup({ setup, clients, turns, fake, databaseURL }));
    }
    onProgress?.(setups.length, setups.length);
    return {
      clients,
      turns,
      rows,
      ...(databaseURL === undefined
        ? { postgresSkipped: noDatabaseReason }
        : { postgres: await serverSettings(databaseURL) }),
    };
  } finally {
    await fake.close();
  }
}

async function measureSetup({
  setup,
  clients,
  turns,
  fake,
  databaseURL,
}: {
  setup: StoreSetup;
  clients: number;
  turns: number;
  fake: FakeProviderProcess;
  databaseURL: string | undefined;
}): Promise<StoreRow> {
  const dataDir = mkdtempSync(join(tmpdir(), "cursor-bench-stores-"));
  const database = setup === "sqlite-1" ? undefined : await createDatabase(databaseURL as string);
  const processCount = setup === "postgresql-2" ? 2 : 1;
  const environment = {
    CURSOR_GATEWAY_DATA_DIR: dataDir,
    CURSOR_GATEWAY_PROVIDER: "openai-responses",
    OPENAI_API_KEY: "bench-key",
    OPENAI_BASE_URL: fake.openaiBaseURL,
    CURSOR_GATEWAY_CHECKPOINT_SECRET: benchCheckpointSecret,
    ...(database === undefined ? {} : { CURSOR_GATEWAY_DATABASE_URL: database.url }),
  };
  const gateways = await Promise.all(
    Array.from({ length: processCount }, () => GatewayProcess.start(environment)),
  );
  const failures: string[] = [];
  const gatewayMs: number[] = [];
  try {
    const conversation = (client: number) => `stores-${setup}-${client}`;
    // Warm-up: each conversation's first turn (creates it; JIT, pools and caches warm up).
    await concurrently(clients, async (client) => {
      await timedPost(`${gateways[0]!.url}/v1/runs`, turnBody(conversation(client), 0));
    });
    await fake.reset();
    const seconds = await concurrently(clients, async (client) => {
      for (let turn = 1; turn <= turns; turn += 1) {
        const gateway = gateways[turn % gateways.length]!;
        const result = await timedPost(
          `${gateway.url}/v1/runs`,
          turnBody(conversation(client), turn),
        );
        if (result.ok) gatewayMs.push(result.ms);
        else failures.push(`${conversation(client)} turn ${turn}: ${result.detail}`);
      }
    });
    // The floor: the very bodies, straight to the provider, as many at once.
    const bodies = await fake.requestBodies();
    await fake.reset();
    const directMs: number[] = [];
    let next = 0;
    const directSeconds = await concurrently(clients, async () => {
      while (next < bodies.length) {
        const body = bodies[next];
        next += 1;
        directMs.push((await timedPost(`${fake.url}/v1/responses`, body)).ms);
      }
    });
    await fake.reset();
    return {
      setup,
      processes: processCount,
      requests: gatewayMs.length,
      requestsPerSecond: gatewayMs.length / seconds,
      gatewayP50Ms: quantile(gatewayMs, 0.5),
      gatewayP95Ms: quantile(gatewayMs, 0.95),
      directP50Ms: quantile(directMs, 0.5),
      directP95Ms: quantile(directMs, 0.95),
      directRequestsPerSecond: directMs.length / directSeconds,
      failures,
    };
  } finally {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
