import {
  EnvelopeDecoder,
  envelopeFlags,
  encodeEnvelope,
  maxEnvelopeBytes,
  wireRoutes,
} from "@cursor/wire";
import type { IdeReaction } from "@cursor/wire/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bidiAppend,
  bidiRequestId,
  execResultMessage,
  heartbeatMessage,
  kvSetResultMessage,
  summarizeActionMessage,
} from "../proxy/e2e/cursor-messages.js";
import { fullCursorContext } from "./cursor-context.js";
import { waitFor } from "./e2e-helpers.js";
import { ideAuthorization, scriptedIde, startWireGateway } from "./cursor-wire-harness.js";
import type { WireGateway } from "./cursor-wire-harness.js";
import { temporaryFolders } from "./e2e-environment.js";
import { killAllGatewayProcesses } from "./gateway-process.js";
import { startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";
import { h2cFetch } from "./wire-fetch.js";

/**
 * Bad input on the Cursor wire (cursor-wire.md "Bad input"), sent to a real gateway process:
 * a precise Connect error each, and the SQLite store byte-identical before and after.
 */

const folders = temporaryFolders("cursor-wire-bad-input");
let provider: ScriptedProvider;
let gateway: WireGateway;

beforeAll(async () => {
  provider = await startScriptedProvider();
  gateway = await startWireGateway({ provider, dataDir: folders.create() });
  // Something in the store, so "unchanged" has content to compare.
  const { ide, transport } = scriptedIde({ url: gateway.url, protocol: "h1" });
  provider.reply = { type: "text", text: "Seeded." };
  const seeded = await ide.runTurn({
    conversationId: "seed",
    text: "hi",
    requestContext: fullCursorContext(),
  });
  transport.close();
  expect(seeded.end).toEqual({});
});
afterAll(async () => {
  await gateway.stop();
  await killAllGatewayProcesses();
  await provider.fake.close();
  folders.removeAll();
});

const protoHeaders = {
  "content-type": "application/proto",
  "connect-protocol-version": "1",
  authorization: ideAuthorization,
};

async function unary(
  path: string,
  body: Uint8Array,
  headers: Record<string, string> = protoHeaders,
) {
  const response = await fetch(`${gateway.url}${path}`, { method: "POST", headers, body });
  const text = await response.text();
  return { status: response.status, json: text === "" ? {} : (JSON.parse(text) as unknown) };
}

/** A RunSSE call read to its end: the end-stream frame's JSON. */
async function runSseEnd(body: Uint8Array): Promise<unknown> {
  const response = await fetch(`${gateway.url}${wireRoutes.runSse}`, {
    method: "POST",
    headers: { ...protoHeaders, "content-type": "application/connect+proto" },
    body,
  });
  expect(response.status).toBe(200);
  const frames = new EnvelopeDecoder().push(new Uint8Array(await response.arrayBuffer()));
  const end = frames.find((frame) => (frame.flags & envelopeFlags.endStream) !== 0);
  return JSON.parse(new TextDecoder().decode(end!.payload)) as unknown;
}

/** Runs `step` and requires the store to be byte-identical afterwards. */
async function unchanged<T>(step: () => Promise<T>): Promise<T> {
  const before = gateway.dump();
  const result = await step();
  expect(gateway.dump()).toBe(before);
  return result;
}

describe("bad input on the Cursor wire of a real gateway: a precise error each, the store unchanged", () => {
  it("a malformed RunSSE envelope, and a RunSSE without a request id", async () => {
    await unchanged(async () => {
      const truncated = encodeEnvelope({ payload: bidiRequestId("r-cut") }).subarray(0, 6);
      expect(await runSseEnd(truncated)).toEqual({
        error: {
          code: "invalid_argument",
          message: "the body ends inside an envelope (6 bytes left over)",
        },
      });
      expect(await runSseEnd(encodeEnvelope({ payload: new Uint8Array() }))).toEqual({
        error: {
          code: "invalid_argument",
          message: "RunSSE needs a request id (BidiRequestId.request_id)",
        },
      });
    });
  });

  it("bad hex, an undecodable BidiAppendRequest, an undecodable AgentClientMessage", async () => {
    await unchanged(async () => {
      const withData = (requestId: string, data: string) => {
        const body = bidiAppend({ requestId, seqno: 0, message: new Uint8Array() });
        // Field 1 (data) replaced: the encoder writes it first, as "" (tag 0x0a, length 0).
        return new Uint8Array([
          0x0a,
          data.length,
          ...Buffer.from(data, "latin1"),
          ...body.subarray(2),
        ]);
      };
      expect(await unary(wireRoutes.bidiAppend, withData("r-hex", "0g"))).toEqual({
        status: 400,
        json: {
          code: "invalid_argument",
          message: "BidiAppendRequest.data is not hex (an even number of 0-9a-f digits)",
        },
      });
      expect(await unary(wireRoutes.bidiAppend, new Uint8Array([0x0a, 0xff, 0xff]))).toMatchObject({
        status: 400,
        json: {
          code: "invalid_argument",
          message: expect.stringMatching(/^BidiAppendRequest could not be decoded/),
        },
      });
      expect(await unary(wireRoutes.bidiAppend, withData("r-proto", "0aff"))).toMatchObject({
        status: 400,
        json: {
          code: "invalid_argument",
          message: expect.stringMatching(/^append 0's AgentClientMessage could not be decoded/),
        },
      });
    });
  });

  it("a frame or body over 64 MiB", async () => {
    await unchanged(async () => {
      const header = new Uint8Array(5);
      new DataView(header.buffer).setUint32(1, maxEnvelopeBytes + 1, false);
      expect(await runSseEnd(header)).toMatchObject({ error: { code: "resource_exhausted" } });
      expect(await unary(wireRoutes.bidiAppend, new Uint8Array(maxEnvelopeBytes + 6))).toEqual({
        status: 429,
        json: {
          code: "resource_exhausted",
          message: `the body of ${maxEnvelopeBytes + 6} bytes exceeds the limit of ${maxEnvelopeBytes} bytes`,
        },
      });
    });
  });

  it("an append for an unknown request id that is not its run request, a seqno far past the window", async () => {
    await unchanged(async () => {
      expect(
        await unary(
          wireRoutes.bidiAppend,
          bidiAppend({ requestId: "r-unknown", seqno: 0, message: kvSetResultMessage(1) }),
        ),
      ).toEqual({
        status: 400,
        json: {
          code: "failed_precondition",
          message: "append 0 of request r-unknown must be its run_request, got kvClientMessage",
        },
      });
      expect(
        await unary(
          wireRoutes.bidiAppend,
          bidiAppend({ requestId: "r-far", seqno: 1_000, message: heartbeatMessage() }),
        ),
      ).toEqual({
        status: 400,
        json: {
          code: "invalid_argument",
          message:
            "append_seqno 1000 is 1000 past the next expected append 0; at most 255 may be outstanding",
        },
      });
    });
  });

  it("an exec result for no pending exec, a KV result for no pending operation, a mid-run action other than cancel", async () => {
    const { ide, transport } = scriptedIde({ url: gateway.url, protocol: "h1" });
    try {
      provider.reply = {
        type: "slow",
        delayMsPerEvent: 60,
        reply: { type: "text", text: "a slow answer", chunks: 8 },
      };
      const before = gateway.dump();
      const extra: Uint8Array[] = [
        execResultMessage({ id: 9, payload: new Uint8Array() }),
        kvSetResultMessage(77),
        summarizeActionMessage(),
      ];
      const turn = await ide.runTurn({
        conversationId: "bad-mid-run",
        text: "slowly",
        onMessage: (message): IdeReaction => {
          if (
            message.message.case !== "interactionUpdate" ||
            message.message.value.message.case !== "textDelta"
          ) {
            return undefined;
          }
          const next = extra.shift();
          // Once all three are out, the user stops the run: nothing of the turn is stored.
          return next === undefined ? "cancel" : { append: next };
        },
      });
      // The IDE hears of the cancel at once; the run then ends on its own and stores its record
      // and its cancelled call's usage record a moment later. Once both are there:
      await waitFor(
        () =>
          /^\[\d+,"[^"]+","local","bad-mid-run",.*"cancelled"/m.test(gateway.dump()) &&
          /^\["local","bad-mid-run",.*"cancelled"/m.test(gateway.dump()),
        { what: "the cancelled run's records" },
      );
      // Nothing changed but the run's own record (it was requested, and ended cancelled).
      const after = gateway.dump();
      // The run row notes the cancelled run and the usage record its cancelled provider call
      // (observations beside the history); nothing else may change.
      const withoutRuns = (dump: string) =>
        dump
          .replace(/^# runs [^#]*/m, "")
          .replace(/^# provider_calls [^#]*/m, "")
          .replace(/^\["provider_calls",\d+\]$/m, "");
      expect(withoutRuns(after)).toBe(withoutRuns(before));
      expect(after.match(/^\["local","bad-mid-run",.*$/gm)).toEqual([
        expect.stringMatching(/^\["local","bad-mid-run","cursor-[0-9a-f]+","cancelled",null,null,/),
      ]);
      expect(
        turn.appendErrors.map((error) => [error.status, JSON.parse(error.body) as unknown]),
      ).toEqual([
        [
          400,
          {
            code: "failed_precondition",
            message: "exec_client_message 9 (exec_id exec-read-9) answers no pending exec",
          },
        ],
        [
          400,
          {
            code: "failed_precondition",
            message: "kv_client_message 77 answers no pending KV operation",
          },
        ],
        [501, expect.objectContaining({ code: "unimplemented" })],
      ]);
      expect(turn.end.error?.code).toBe("canceled");
    } finally {
      transport.close();
    }
  });

  it("an unsupported action or mode: unimplemented, nothing stored", async () => {
    const { ide, transport } = scriptedIde({ url: gateway.url, protocol: "h1" });
    try {
      await unchanged(async () => {
        const plan = await ide.runTurn({
          conversationId: "bad-action",
          action: { action: { case: "startPlanAction", value: {} } },
        });
        expect(plan.end.error).toMatchObject({
          code: "unimplemented",
          message: "start_plan_action is not supported by this gateway",
        });
        const triage = await ide.runTurn({
          conversationId: "bad-mode",
          action: {
            action: {
              case: "userMessageAction",
              // AgentMode.TRIAGE = 5 (cursor-wire-facts.md §2.4)
              value: { userMessage: { text: "x", messageId: "m1", mode: 5 } },
            },
          },
        });
        expect(triage.end.error).toMatchObject({
          code: "unimplemented",
          message: "mode TRIAGE is not supported (AGENT, ASK, PLAN, DEBUG)",
        });
      });
    } finally {
      transport.close();
    }
  });

  it("the wrong method or content type, on HTTP/1.1 and h2c", async () => {
    await unchanged(async () => {
      expect(
        await unary(wireRoutes.bidiAppend, new Uint8Array(), {
          "content-type": "application/json",
        }),
      ).toEqual({
        status: 501,
        json: {
          code: "unimplemented",
          message:
            "content-type must be application/proto or application/connect+proto, got application/json",
        },
      });
      const get = await fetch(`${gateway.url}${wireRoutes.availableModels}`);
      expect(get.status).toBe(501);
      const h2 = h2cFetch(gateway.url);
      try {
        const answer = await h2.fetch(`${gateway.url}${wireRoutes.bidiAppend}`, {
          method: "POST",
          headers: { "content-type": "text/plain" },
          body: new Uint8Array([1]),
        });
        expect(answer.status).toBe(501);
        expect(await answer.json()).toMatchObject({ code: "unimplemented" });
      } finally {
        h2.close();
      }
    });
  });
});
