import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { CanonicalMessage } from "@cursor/run";
import { GatewayProcess } from "../harness/gateway-process.js";
import { quantile } from "../stats.js";

/** What part 8 measures: another tenant's small reads while one tenant's large content is read. */
export interface IsolationRow {
  /** Which build of the gateway served (`this build`, or a baseline's label). */
  readonly build: string;
  /** Image turns of the large tenant and the size of each image (MiB of raw bytes). */
  readonly largeTurns: number;
  readonly imageMiB: number;
  /** Size of the large tenant's `GET /history` answer. */
  readonly largeHistoryBytes: number;
  readonly samples: number;
  /** The small tenant's `GET /v1/conversations/{id}/history`, alone and beside the large reads. */
  readonly smallAloneP50Ms: number;
  readonly smallAloneP95Ms: number;
  readonly smallBesideP50Ms: number;
  readonly smallBesideP95Ms: number;
  readonly smallBesideMaxMs: number;
  /** `GET /healthz`, alone and beside the large reads. */
  readonly healthAloneP50Ms: number;
  readonly healthBesideP50Ms: number;
  readonly healthBesideP95Ms: number;
  readonly healthBesideMaxMs: number;
  /** Whole large-history reads completed by the concurrent readers while measuring. */
  readonly largeReads: number;
}

const tokenSmall = "isolation-small-tenant-0123456789";
const tokenLarge = "isolation-large-tenant-0123456789";
const tenantOf = (token: string) =>
  `t-${createHash("sha256").update(token).digest("hex").slice(0, 16)}`;

interface ServerModule {
  SqliteStore: new (options: { path: string }) => {
    appendMessages(input: unknown): Promise<void>;
    close(): Promise<void>;
  };
}
interface RunModule {
  HistoryLog: new () => {
    readonly length: number;
    readonly headDigest: string;
    check(messages: readonly unknown[]): {
      appended: readonly CanonicalMessage[];
      digests: readonly string[];
      headDigest: string;
      length: number;
    };
    append(messages: readonly unknown[]): unknown;
  };
  createRuntimeMessage(input: unknown): CanonicalMessage;
  createAssistantMessage(input: unknown): CanonicalMessage;
}

/**
 * Part 8: one tenant's large content must not slow anyone else. The large tenant's conversation
 * holds `largeTurns` user turns with a `imageMiB` MiB image each, the small tenant's a few short
 * turns, both stored as the gateway commits turns (the store's `appendMessages`). The gateway
 * (`cursor-gateway serve` of the build under test, its own process) then answers the small
 * tenant's history and `/healthz`, first alone, then while two other processes read the large
 * tenant's history in a loop. A `serverDir` of another build (its `dist`) measures that build on
 * the same data, for a before/after comparison.
 */
export async function measureLargeContentIsolation({
  largeTurns,
  imageMiB,
  samples,
  serverDir,
  build = "this build",
  onProgress,
}: {
  largeTurns: number;
  imageMiB: number;
  samples: number;
  /** A gateway build's `packages/server` folder; default: this workspace's @cursor/server. */
  serverDir?: string;
  build?: string;
  onProgress?: (done: number, total: number) => void;
}): Promise<IsolationRow> {
  const require = createRequire(import.meta.url);
  const server = serverDir ?? dirname(require.resolve("@cursor/server/package.json"));
  const runDir = dirname(
    createRequire(join(server, "package.json")).resolve("@cursor/run/package.json"),
  );
  const serverModule = (await import(
    pathToFileURL(join(server, "dist", "index.js")).href
  )) as ServerModule;
  const runModule = (await import(
    pathToFileURL(join(runDir, "dist", "index.js")).href
  )) as RunModule;
  const dataDir = mkdtempSync(join(tmpdir(), "cursor-bench-isolation-"));
  let gateway: GatewayProcess | undefined;
  const readers: ChildProcess[] = [];
  try {
    await seed({ serverModule, runModule, dataDir, largeTurns, imageMiB });
    // The build under test (or a baseline's), on the seeded data folder, its own process.
    gateway = await GatewayProcess.spawn({
      cli: join(server, "dist", "cli.js"),
      environment: {
        CURSOR_GATEWAY_HOST: "127.0.0.1",
        CURSOR_GATEWAY_PORT: "0",
        CURSOR_GATEWAY_DATA_DIR: dataDir,
        CURSOR_GATEWAY_PROVIDER: "simulated",
        CURSOR_GATEWAY_TOKENS: `${tokenSmall},${tokenLarge}`,
        CURSOR_GATEWAY_LOG_LEVEL: "error",
      },
    });
    const url = gateway.url;
    const get = async (path: string, token?: string): Promise<number> => {
      const started = performance.now();
      const response = await fetch(`${url}${path}`, {
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
      return performance.now() - started;
    };
    const small = "/v1/conversations/small/history";
    const measure = async (offset: number) => {
      const smallMs: number[] = [];
      const healthMs: number[] = [];
      for (let i = 0; i < samples; i += 1) {
        onProgress?.(offset + i, 2 * samples);
        smallMs.push(await get(small, tokenSmall));
        healthMs.push(await get("/healthz"));
      }
      return { smallMs, healthMs };
    };
    // Warm-up: the first reads open pages and compile code.
    for (let i = 0; i < 5; i += 1) await get(small, tokenSmall);
    const largeHistoryBytes = Buffer.byteLength(
      Buffer.from(
        await (
          await fetch(`${url}/v1/conversations/large/history`, {
            headers: { authorization: `Bearer ${tokenLarge}` },
          })
        ).arrayBuffer(),
      ),
    );
    const alone = await measure(0);
    const counts: Promise<number>[] = [];
    for (let i = 0; i < 2; i += 1) {
      const reader = spawn(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          readerScript,
          `${url}/v1/conversations/large/history`,
          tokenLarge,
        ],
        { stdio: ["pipe", "pipe", "inherit"] },
      );
      readers.push(reader);
      counts.push(
        new Promise((resolve) => {
          let output = "";
          reader.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
          reader.once("exit", () => resolve(Number(output.trim()) || 0));
        }),
      );
    }
    // Let both readers get going before measuring.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const beside = await measure(samples);
    for (const reader of readers) reader.stdin!.end();
    const largeReads = (await Promise.all(counts)).reduce((a, b) => a + b, 0);
    onProgress?.(2 * samples, 2 * samples);
    return {
      build,
      largeTurns,
      imageMiB,
      largeHistoryBytes,
      samples,
      smallAloneP50Ms: quantile(alone.smallMs, 0.5),
      smallAloneP95Ms: quantile(alone.smallMs, 0.95),
      smallBesideP50Ms: quantile(beside.smallMs, 0.5),
      smallBesideP95Ms: quantile(beside.smallMs, 0.95),
      smallBesideMaxMs: Math.max(...beside.smallMs),
      healthAloneP50Ms: quantile(alone.healthMs, 0.5),
      healthBesideP50Ms: quantile(beside.healthMs, 0.5),
      healthBesideP95Ms: quantile(beside.healthMs, 0.95),
      healthBesideMaxMs: Math.max(...beside.healthMs),
      largeReads,
    };
  } finally {
    for (const reader of readers) reader.kill("SIGKILL");
    await gateway?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Reads the large history in a loop until its stdin closes; prints how many reads completed. */
const readerScript = `
const [url, token] = process.argv.slice(1);
let running = true, reads = 0;
process.stdin.on("end", () => (running = false)).resume();
while (running) {
  const response = await fetch(url, { headers: { authorization: "Bearer " + token } });
  await response.arrayBuffer();
  if (running) reads += 1;
}
console.log(reads);
`;

/** Commits the two tenants' turns through the store, as the gateway's turn writer does. */
async function seed({
  serverModule,
  runModule,
  dataDir,
  largeTurns,
  imageMiB,
}: {
  serverModule: ServerModule;
  runModule: RunModule;
  dataDir: string;
  largeTurns: number;
  imageMiB: number;
}): Promise<void> {
  const store = new serverModule.SqliteStore({ path: join(dataDir, "gateway.sqlite") });
  try {
    const conversation = async (
      tenant: string,
      conversationId: string,
      turns: number,
      image: (n: number) => { type: "image"; mimeType: string; data: string }[],
    ) => {
      const log = new runModule.HistoryLog();
      for (let n = 0; n < turns; n += 1) {
        const messages = [
          runModule.createRuntimeMessage({
            eventId: `turn.m${n}.0123456789abcdef`,
            runtimeKind: "user-turn",
            content: [
              { type: "text", text: `Question ${n}: what is in this picture?` },
              ...image(n),
            ],
          }),
          runModule.createAssistantMessage({ runId: `r${n}`, step: 0, text: `Answer ${n}.` }),
        ];
        const checked = log.check(messages);
        await store.appendMessages({
          tenant,
          conversationId,
          expected:
            log.length === 0
              ? null
              : { epoch: 0, headDigest: log.headDigest, messageCount: log.length },
          messages: checked.appended,
          digests: checked.digests,
          next: { epoch: 0, headDigest: checked.headDigest, messageCount: checked.length },
        });
        log.append(checked.appended);
      }
    };
    await conversation(tenantOf(tokenLarge), "large", largeTurns, () => [
      {
        type: "image",
        mimeType: "image/png",
        data: randomBytes(imageMiB * 1024 * 1024).toString("base64"),
      },
    ]);
    await conversation(tenantOf(tokenSmall), "small", 4, () => []);
  } finally {
    await store.close();
  }
}
