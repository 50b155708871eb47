import { afterAll, beforeAll, expect, it } from "vitest";
import { fullCursorContext } from "./cursor-context.js";
import { scriptedIde, startWireGateway } from "./cursor-wire-harness.js";
import { temporaryFolders } from "./e2e-environment.js";
import { describeEachStore, e2eStores } from "./e2e-stores.js";
import { killAllGatewayProcesses } from "./gateway-process.js";
import { startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";

/**
 * What the IDE already holds is recorded in the gateway's store, not in one process's memory: a
 * restarted gateway, or another process of the deployment, never sends the IDE a blob it has
 * acknowledged, so a turn sends only what it added wherever it runs.
 */

const folders = temporaryFolders("cursor-wire-blob-ledger");
const stores = e2eStores();

let provider: ScriptedProvider;
beforeAll(async () => {
  provider = await startScriptedProvider();
});
afterAll(async () => {
  await killAllGatewayProcesses();
  await provider.fake.close();
  await stores.dropAll();
  folders.removeAll();
});

describeEachStore("the record of blobs the IDE holds", ({ kind }) => {
  it("survives the process: the next gateway on the same store sends only the turn's new blobs", async () => {
    const store = await stores.create({ kind, dataDir: folders.create() });
    const conversationId = `ledger-${kind}`;
    const sent = new Set<string>();
    let perTurn: number[] = [];
    let client: ReturnType<typeof scriptedIde> | undefined;
    for (const [index, text] of ["one", "two", "three", "four"].entries()) {
      // A new gateway process for every turn, all on the one store.
      const gateway = await startWireGateway({
        provider,
        dataDir: store.dataDir,
        extra: store.environment,
      });
      const next = scriptedIde({
        url: gateway.url,
        protocol: "h1",
        ...(client === undefined ? {} : { options: { blobStore: client.ide.blobs } }),
      });
      if (client !== undefined)
        next.ide.setState(conversationId, client.ide.stateOf(conversationId)!);
      client = next;
      try {
        provider.reply = { type: "text", text: `Answer ${index}.` };
        const turn = await client.ide.runTurn({
          conversationId,
          text,
          requestContext: fullCursorContext(),
        });
        expect(turn.end, JSON.stringify(turn.end)).toEqual({});
        const again = turn.kv.setBlobIds.filter((id) => sent.has(id));
        expect(again, `turn ${index} sent blobs the IDE had acknowledged`).toEqual([]);
        // Nothing the IDE holds had to be fetched back either: the store knew the conversation.
        expect(turn.kv.getBlobIds).toEqual([]);
        for (const id of turn.kv.setBlobIds) sent.add(id);
        perTurn = [...perTurn, turn.kv.setBlobIds.length];
      } finally {
        client.transport.close();
        await gateway.stop();
      }
    }
    // The record is in the store itself (any process of the deployment reads it).
    const dump = await store.dump();
    const missing = [...sent].filter((id) => !dump.includes(id));
    expect(missing, "acknowledged blobs missing from the store's record").toEqual([]);
    // Later turns add the same few blobs each (the seal, a turn record, the turn's messages).
    expect(new Set(perTurn.slice(1)).size).toBe(1);
  });
});
