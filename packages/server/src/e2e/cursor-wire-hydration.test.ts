import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { CanonicalMessage } from "@cursor/run";
import type { RecordedRequest } from "@cursor/testkit";
import type { IdeTurnResult } from "@cursor/wire/testing";
import { MemoryIdeBlobStore } from "@cursor/wire/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fullCursorContext, reorderedCursorContext } from "./cursor-context.js";
import {
  hex,
  ideAuthorization,
  scriptedIde,
  startWireGateway,
  wireProtocols,
} from "./cursor-wire-harness.js";
import { temporaryFolders } from "./e2e-environment.js";
import { killAllGatewayProcesses } from "./gateway-process.js";
import { cacheShortfalls, prefixViolations } from "./provider-bodies.js";
import { startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";

/**
 * Cursor's conversation state carries a conversation to a gateway that never saw it (another
 * machine, a fresh data folder): the same message ids and content, dedup and the provider prefix
 * continuing exactly; an edited state refused with nothing stored; and the IDE's own session
 * token nowhere.
 */

const folders = temporaryFolders("cursor-wire-hydration");
const api = "openai-responses";

let provider: ScriptedProvider;
beforeAll(async () => {
  provider = await startScriptedProvider();
});
afterAll(async () => {
  await killAllGatewayProcesses();
  await provider.fake.close();
  folders.removeAll();
});

async function calls<T>(
  step: () => Promise<T>,
): Promise<{ result: T; requests: RecordedRequest[] }> {
  const before = provider.fake.requests.length;
  const result = await step();
  return { result, requests: provider.fake.requests.slice(before) };
}

function expectCleanEnd(turn: IdeTurnResult): void {
  expect(turn.end, JSON.stringify(turn.end)).toEqual({});
  expect(turn.appendErrors).toEqual([]);
}

describe.each(wireProtocols)("Cursor conversation state across gateways over %s", (protocol) => {
  it("a fresh gateway on an empty data folder continues from the echoed state, with pre_fetched_blobs and over KV", async () => {
    const first = await startWireGateway({ provider, dataDir: folders.create() });
    const original = scriptedIde({ url: first.url, protocol });
    const conversations = { attached: `${protocol}-attached`, fetched: `${protocol}-fetched` };
    const before = new Map<string, { history: CanonicalMessage[]; lastBody: unknown }>();
    try {
      for (const conversationId of Object.values(conversations)) {
        let lastBody: unknown;
        for (const [index, text] of ["one", "two", "three"].entries()) {
          provider.reply = { type: "text", text: `Answer ${text}.` };
          const { result, requests } = await calls(() =>
            original.ide.runTurn({
              conversationId,
              text,
              requestContext: index === 1 ? reorderedCursorContext() : fullCursorContext(),
            }),
          );
          expectCleanEnd(result);
          lastBody = requests.at(-1)!.body;
        }
        before.set(conversationId, { history: await first.history(conversationId), lastBody });
      }
    } finally {
      original.transport.close();
      await first.stop();
    }

    const fresh = await startWireGateway({ provider, dataDir: folders.create() });
    try {
      for (const [conversationId, prefetch] of [
        [conversations.attached, true],
        [conversations.fetched, false],
      ] as const) {
        // The same IDE (its blob store and its latest checkpoint), now talking to the new gateway.
        const client = scriptedIde({
          url: fresh.url,
          protocol,
          options: { blobStore: original.ide.blobs, prefetchBlobs: prefetch },
        });
        const state = original.ide.stateOf(conversationId)!;
        client.ide.setState(conversationId, state);
        provider.reply = { type: "text", text: "Answer four." };
        const { result: turn, requests } = await calls(() =>
          client.ide.runTurn({ conversationId, text: "four", requestContext: fullCursorContext() }),
        );
        client.transport.close();
        expectCleanEnd(turn);
        const { history, lastBody } = before.get(conversationId)!;
        const after = await fresh.history(conversationId);
        // Same ids and content; the unchanged context is not appended again.
        expect(after.slice(0, history.length)).toEqual(history);
        expect(after.slice(history.length).map((message) => message.kind)).toEqual([
          "runtime",
          "assistant",
        ]);
        // The provider prefix extends exactly, and reads everything the cache could give.
        expect(requests).toHaveLength(1);
        expect(prefixViolations(api, [lastBody, requests[0]!.body])).toEqual([]);
        expect(cacheShortfalls(requests)).toEqual([]);
        expect(requests[0]!.usage!.cachedInputTokens).toBeGreaterThan(0);
        const roots = state.rootPromptMessagesJson.map(hex);
        if (prefetch) {
          // Every blob hydration needs was attached: nothing asked for over KV.
          expect(turn.kv.getBlobIds).toEqual([]);
        } else {
          // Asked for once each (concurrently), and known to be held: none is sent back.
          expect(new Set(turn.kv.getBlobIds)).toEqual(new Set(roots));
          expect(turn.kv.getBlobIds).toHaveLength(roots.length);
          expect(turn.kv.setBlobIds.filter((id) => roots.includes(id))).toEqual([]);
        }
      }
    } finally {
      await fresh.stop();
    }
  });

  it("refuses a state whose history was edited with consistent blob hashes; the store stays byte-identical", async () => {
    const first = await startWireGateway({ provider, dataDir: folders.create() });
    const original = scriptedIde({ url: first.url, protocol });
    const conversationId = `${protocol}-forged`;
    try {
      provider.reply = { type: "text", text: "Noted." };
      expectCleanEnd(
        await original.ide.runTurn({ conversationId, text: "the secret number is 1" }),
      );
    } finally {
      original.transport.close();
      await first.stop();
    }
    const state = original.ide.stateOf(conversationId)!;
    // The runtime message's blob edited, and its id replaced by the SHA-256 of the new bytes.
    const forgedBlobs = new MemoryIdeBlobStore();
    for (const id of original.ide.blobs.ids())
      forgedBlobs.overwrite(id, original.ide.blobs.get(id)!);
    const roots = [...state.rootPromptMessagesJson];
    const index = roots.findIndex((id) =>
      Buffer.from(original.ide.blobs.get(hex(id)) ?? [])
        .toString("utf8")
        .includes("secret number is 1"),
    );
    expect(index).toBeGreaterThan(0);
    const edited = Buffer.from(
      Buffer.from(original.ide.blobs.get(hex(roots[index]!))!)
        .toString("utf8")
        .replace("is 1", "is 2"),
    );
    const editedId = forgedBlobs.set(
      (await import("node:crypto")).createHash("sha256").update(edited).digest("hex"),
      edited,
    );
    expect(editedId).toBeUndefined();
    roots[index] = (await import("node:crypto")).createHash("sha256").update(edited).digest();

    const fresh = await startWireGateway({ provider, dataDir: folders.create() });
    const forger = scriptedIde({ url: fresh.url, protocol, options: { blobStore: forgedBlobs } });
    try {
      const dump = fresh.dump();
      const calls = provider.fake.requests.length;
      forger.ide.setState(conversationId, { ...state, rootPromptMessagesJson: roots });
      const refused = await forger.ide.runTurn({ conversationId, text: "what is the number?" });
      expect(refused.end.error?.code).toBe("invalid_argument");
      expect(refused.end.error?.message).toContain("the conversation state was refused");
      expect(refused.checkpoints).toEqual([]);
      expect(provider.fake.requests.length).toBe(calls);
      expect(fresh.dump()).toBe(dump);
    } finally {
      forger.transport.close();
      await fresh.stop();
    }
  });
});

describe("the IDE's Authorization value", () => {
  it("never appears in logs, the store, checkpoints, blobs or provider requests", async () => {
    const secret = ideAuthorization.slice("Bearer ".length);
    const dataDir = folders.create();
    const gateway = await startWireGateway({
      provider,
      dataDir,
      extra: { CURSOR_GATEWAY_LOG_LEVEL: "trace" },
    });
    const { ide, transport } = scriptedIde({ url: gateway.url, protocol: "h1" });
    const h2 = scriptedIde({
      url: gateway.url,
      protocol: "h2c",
      options: { blobStore: ide.blobs },
    });
    const states: unknown[] = [];
    const requestsBefore = provider.fake.requests.length;
    try {
      provider.reply = { type: "text", text: "One." };
      const one = await ide.runTurn({
        conversationId: "auth-1",
        text: "one",
        requestContext: fullCursorContext(),
      });
      provider.reply = { type: "error", status: 500, message: "upstream broke" };
      const failed = await ide.runTurn({ conversationId: "auth-1", text: "two" });
      expect(failed.end.error?.code).toBe("unavailable");
      provider.reply = { type: "text", text: "Three." };
      h2.ide.setState("auth-1", ide.stateOf("auth-1"));
      const three = await h2.ide.runTurn({ conversationId: "auth-1", text: "three" });
      const unknownModel = await ide.runTurn({
        conversationId: "auth-2",
        text: "x",
        modelId: "nope",
      });
      expect(unknownModel.end.error?.code).toBe("not_found");
      for (const turn of [one, failed, three, unknownModel]) states.push(...turn.messages);
    } finally {
      transport.close();
      h2.transport.close();
    }
    const dump = gateway.dump();
    await gateway.stop();
    const replacer = (_key: string, value: unknown) =>
      typeof value === "bigint"
        ? String(value)
        : value instanceof Uint8Array
          ? Buffer.from(value).toString("latin1")
          : value;
    const places: Record<string, string> = {
      logs: gateway.process.output(),
      store: dump,
      "data folder": readdirSync(dataDir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => readFileSync(join(entry.parentPath, entry.name)).toString("latin1"))
        .join("\n"),
      "server messages (checkpoints, KV, updates)": JSON.stringify(states, replacer),
      blobs: ide.blobs
        .ids()
        .map((id) => Buffer.from(ide.blobs.get(id)!).toString("latin1"))
        .join("\n"),
      "provider requests": JSON.stringify(provider.fake.requests.slice(requestsBefore)),
    };
    expect(places.logs!.length).toBeGreaterThan(0);
    for (const [where, text] of Object.entries(places)) {
      expect(text.includes(secret), `the IDE's token appears in the ${where}`).toBe(false);
      expect(
        text.includes("cursor-session-SECRET"),
        `part of the IDE's token in the ${where}`,
      ).toBe(false);
    }
  });
});
