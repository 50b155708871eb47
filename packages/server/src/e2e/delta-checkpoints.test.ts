import { afterAll, describe, expect, it } from "vitest";
import { createGatewayClient } from "../client/gateway-client.js";
import { agentScript } from "./agent-script.js";
import { temporaryFolders, testCheckpointSecret } from "./e2e-environment.js";
import { conversationView } from "./e2e-helpers.js";
import { startInProcessGateway } from "./in-process-gateway.js";
import { bodyTexts } from "./provider-bodies.js";
import { runScriptRequest, startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";
import { runEnded, streamRun } from "./sse-run.js";
import type { StreamedRun } from "./sse-run.js";

const conversationId = "delta-conversation";
const script = agentScript({ conversationId, callIdPrefix: "call", turns: 12 });
const folders = temporaryFolders("delta");
afterAll(() => folders.removeAll());

interface DeltaEvent {
  readonly delta: string;
  readonly epoch: number;
  readonly messages: number;
  readonly headDigest: string;
  readonly base: { readonly epoch: number; readonly messages: number; readonly headDigest: string };
}

const deltaOf = (result: StreamedRun): DeltaEvent | undefined =>
  result.events.find((event) => event.event === "checkpoint.delta")?.data as DeltaEvent | undefined;

function gatewayOn(provider: ScriptedProvider) {
  return startInProcessGateway({
    provider,
    dataDir: folders.create(),
    extra: { CURSOR_GATEWAY_CHECKPOINT_SECRET: testCheckpointSecret },
  });
}

describe("delta checkpoints (checkpointForm: delta)", () => {
  it(
    "a client that keeps the deltas resumes a fresh gateway from the chain, sending back only the last one otherwise",
    { timeout: 60_000 },
    async () => {
      // The reference: the whole script on one gateway, full checkpoints.
      const referenceProvider = await startScriptedProvider();
      const reference = await gatewayOn(referenceProvider);
      for (const request of script) {
        await runScriptRequest({ baseURL: reference.url, provider: referenceProvider, request });
      }
      const referenceBodies = bodyTexts(referenceProvider.fake.requests);
      const referenceHistory = (await conversationView(reference.url, conversationId)).history;
      await reference.close();
      await referenceProvider.fake.close();

      const provider = await startScriptedProvider();
      const first = await gatewayOn(provider);
      const second = await gatewayOn(provider);
      const chain: string[] = [];
      let held = { messages: 0, headDigest: "" };
      try {
        const half = 10;
        for (const [index, request] of script.entries()) {
          const gateway = index < half ? first : second;
          const body = {
            ...request.body,
            checkpointForm: "delta",
            ...(chain.length === 0 ? {} : { checkpoint: chain.at(-1) }),
          };
          if (index === half) {
            // A gateway that does not hold the conversation cannot resume from the last delta
            // alone: it says so, changes nothing, and the client sends the whole chain.
            const refused = await streamRun(gateway.url, body);
            expect(refused.status).toBe(409);
            expect(refused.body).toMatchObject({ error: { code: "checkpoint_incomplete" } });
            const { checkpoint: _last, ...rest } = body;
            provider.reply = request.reply;
            const resumed = await streamRun(gateway.url, { ...rest, checkpointChain: chain });
            expect(resumed.status).toBe(200);
            expect(runEnded(resumed.events).reason).toBe(request.expectedEnd);
            absorb(resumed);
            continue;
          }
          absorb(
            await runScriptRequest({
              baseURL: gateway.url,
              provider,
              request: { ...request, body },
            }),
          );
        }
        // The provider saw exactly the bodies of the run without deltas and without a second gateway.
        expect(bodyTexts(provider.fake.requests)).toEqual(referenceBodies);
        expect((await conversationView(second.url, conversationId)).history).toEqual(
          referenceHistory,
        );
        // A client that lost its deltas gets the full form.
        const full = await createGatewayClient({ baseURL: second.url }).get(
          `/v1/conversations/${conversationId}/checkpoint`,
        );
        expect(full.status).toBe(200);
        expect(full.body).toMatchObject({
          checkpoint: expect.stringMatching(/^cp2\./),
          messages: held.messages,
          headDigest: held.headDigest,
        });
      } finally {
        await first.close();
        await second.close();
        await provider.fake.close();
      }

      function absorb(result: StreamedRun): void {
        expect(result.events.some((event) => event.event === "checkpoint")).toBe(false);
        const delta = deltaOf(result);
        if (delta === undefined) throw new Error("no checkpoint.delta event");
        // Each delta continues exactly what the client holds (or starts a new epoch).
        if (delta.base.messages > 0) {
          expect(delta.base).toMatchObject({
            messages: held.messages,
            headDigest: held.headDigest,
          });
        } else {
          chain.length = 0;
        }
        expect(delta.delta).toMatch(/^cp3\./);
        chain.push(delta.delta);
        held = { messages: delta.messages, headDigest: delta.headDigest };
      }
    },
  );
});
