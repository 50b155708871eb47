import { wireRoutes } from "@cursor/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { startGateway } from "../start-gateway.js";
import { fullCursorContext } from "./cursor-context.js";
import { ideAuthorization, scriptedIde, startWireGateway } from "./cursor-wire-harness.js";
import type { WireGateway } from "./cursor-wire-harness.js";
import { gatewayEnvironment, temporaryFolders } from "./e2e-environment.js";
import { killAllGatewayProcesses } from "./gateway-process.js";
import { startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";
import { runEnded, streamRun } from "./sse-run.js";

/**
 * The Cursor wire's other actions on a real gateway process, and who the wire serves: one
 * tenant shared with the JSON front door (its endpoints show Cursor conversations).
 */

const folders = temporaryFolders("cursor-wire-actions");
let provider: ScriptedProvider;
let gateway: WireGateway;

beforeAll(async () => {
  provider = await startScriptedProvider();
  gateway = await startWireGateway({ provider, dataDir: folders.create() });
});
afterAll(async () => {
  await gateway.stop();
  await killAllGatewayProcesses();
  await provider.fake.close();
  folders.removeAll();
});

const count = <T>(items: readonly T[], predicate: (item: T) => boolean) =>
  items.filter(predicate).length;

describe("Cursor actions through a real gateway process", () => {
  it("inject_context_action appends one runtime event, checked against the last accepted run", async () => {
    const { ide, transport } = scriptedIde({ url: gateway.url, protocol: "h1" });
    const conversationId = "inject";
    try {
      provider.reply = { type: "text", text: "Started." };
      expect(
        (
          await ide.runTurn({
            conversationId,
            text: "start",
            runId: "run-start",
            requestContext: fullCursorContext(),
          })
        ).end,
      ).toEqual({});
      provider.reply = { type: "text", text: "I see the build is red." };
      const inject = (injectionId: string, expectedRunId: string) =>
        ide.runTurn({
          conversationId,
          action: {
            action: {
              case: "injectContextAction",
              value: {
                injectionId,
                expectedRunId,
                payload: {
                  case: "systemContext",
                  value: { producer: "ci", content: "The build is red." },
                },
              },
            },
          },
        });
      expect((await inject("inj-1", "run-start")).end).toEqual({});
      const history = await gateway.history(conversationId);
      expect(count(history, (message) => message.id === "runtime:inject.inj-1")).toBe(1);
      expect(count(history, (message) => message.kind === "request-context")).toBe(1);
      const calls = provider.fake.requests.length;
      const stale = await inject("inj-2", "run-from-long-ago");
      expect(stale.end.error?.code).toBe("failed_precondition");
      expect(provider.fake.requests.length).toBe(calls);
      expect(await gateway.history(conversationId)).toEqual(history);
    } finally {
      transport.close();
    }
  });

  it("background_task_completion_action: one runtime message per new completion, a repeat calls no provider", async () => {
    const { ide, transport } = scriptedIde({ url: gateway.url, protocol: "h2c" });
    const conversationId = "background";
    try {
      provider.reply = { type: "text", text: "Started." };
      expect(
        (await ide.runTurn({ conversationId, text: "run the tests in the background" })).end,
      ).toEqual({});
      const completion = {
        action: {
          case: "backgroundTaskCompletionAction" as const,
          value: {
            // kind SHELL = 1, status SUCCESS = 1 (cursor-wire-facts.md §2.5)
            completions: [{ taskId: "t1", kind: 1, status: 1, title: "npm test" }],
          },
        },
      };
      provider.reply = { type: "text", text: "The tests passed." };
      expect((await ide.runTurn({ conversationId, action: completion })).end).toEqual({});
      const history = await gateway.history(conversationId);
      expect(count(history, (message) => message.id === "runtime:bg.shell.t1.-")).toBe(1);
      const calls = provider.fake.requests.length;
      const repeat = await ide.runTurn({ conversationId, action: completion });
      expect(repeat.end).toEqual({});
      expect(provider.fake.requests.length).toBe(calls);
      expect(await gateway.history(conversationId)).toEqual(history);
    } finally {
      transport.close();
    }
  });

  it("resume_action continues a pending tool round the JSON front door left: one tenant, one history", async () => {
    const conversationId = "resume";
    provider.reply = {
      type: "tool-calls",
      calls: [{ name: "read_file", arguments: '{"path":"/repo/a.ts"}', callId: "call_resume_1" }],
    };
    const started = await streamRun(gateway.url, {
      conversationId,
      runId: "run-json",
      mode: "agent",
      action: { type: "user-message", message: { id: "m-1", text: "read a.ts" } },
    });
    expect(runEnded(started.events)).toEqual({ reason: "awaiting-tools" });
    const { ide, transport } = scriptedIde({ url: gateway.url, protocol: "h1" });
    try {
      provider.reply = { type: "text", text: "I could not read it here." };
      const resumed = await ide.runTurn({
        conversationId,
        action: { action: { case: "resumeAction", value: {} } },
      });
      expect(resumed.end).toEqual({});
      expect(resumed.text).toBe("I could not read it here.");
      const history = await gateway.history(conversationId);
      expect(history.map((message) => message.kind)).toEqual([
        "runtime",
        "assistant",
        "tool-result",
        "assistant",
      ]);
      // The gateway runs no tools in the editor yet: the call got an error result.
      expect(history[2]).toMatchObject({ callId: "call_resume_1", isError: true });
    } finally {
      transport.close();
    }
  });

  it("a cancel_action as the run request cancels the conversation's active run", async () => {
    const { ide, transport } = scriptedIde({ url: gateway.url, protocol: "h1" });
    const conversationId = "cancel-action";
    try {
      provider.reply = { type: "text", text: "First." };
      expect((await ide.runTurn({ conversationId, text: "first" })).end).toEqual({});
      const history = await gateway.history(conversationId);
      provider.reply = {
        type: "slow",
        delayMsPerEvent: 100,
        reply: { type: "text", text: "long", chunks: 30 },
      };
      let cancel: Promise<Awaited<ReturnType<typeof ide.runTurn>>> | undefined;
      const running = await ide.runTurn({
        conversationId,
        text: "a long task",
        onMessage: (message) => {
          if (
            cancel === undefined &&
            message.message.case === "interactionUpdate" &&
            message.message.value.message.case === "textDelta"
          ) {
            cancel = ide.runTurn({
              conversationId,
              action: { action: { case: "cancelAction", value: { reason: "stop" } } },
            });
          }
          return undefined;
        },
      });
      expect(running.end.error?.code).toBe("canceled");
      expect((await cancel!).end.error).toMatchObject({
        code: "canceled",
        message: "cancelled by the client: stop",
      });
      expect(await gateway.history(conversationId)).toEqual(history);
    } finally {
      transport.close();
    }
  });

  it("the model lists show the catalog: one BYOK model under its byok/ id", async () => {
    const { ide, transport } = scriptedIde({ url: gateway.url, protocol: "h1" });
    try {
      for (const path of [wireRoutes.availableModels, ...wireRoutes.getUsableModels]) {
        const reply = await ide.post(path, new Uint8Array());
        expect(reply.status).toBe(200);
        const text = Buffer.from(reply.body).toString("latin1");
        expect(text).toContain("byok/gpt-5");
        expect(text).toContain("gpt-5 (your key)");
      }
    } finally {
      transport.close();
    }
  });
});

describe("who the wire serves", () => {
  const tokens = ["tenant-a-token-0123456789", "tenant-b-token-0123456789"];

  it("the tenant of CURSOR_GATEWAY_WIRE_TOKEN: its JSON endpoints show the Cursor conversations", async () => {
    const own = await startWireGateway({
      provider,
      dataDir: folders.create(),
      extra: { CURSOR_GATEWAY_TOKENS: tokens.join(","), CURSOR_GATEWAY_WIRE_TOKEN: tokens[1]! },
    });
    const { ide, transport } = scriptedIde({ url: own.url, protocol: "h1" });
    try {
      provider.reply = { type: "text", text: "Hi." };
      expect((await ide.runTurn({ conversationId: "tenant", text: "hi" })).end).toEqual({});
      const view = (token: string) =>
        fetch(`${own.url}/v1/conversations/tenant`, {
          headers: { authorization: `Bearer ${token}` },
        });
      expect((await view(tokens[1]!)).status).toBe(200);
      expect((await view(tokens[0]!)).status).toBe(404);
      // The IDE's own Cursor session token is no bearer token of this gateway, and not needed.
      expect(
        (
          await fetch(`${own.url}/v1/conversations/tenant`, {
            headers: { authorization: ideAuthorization },
          })
        ).status,
      ).toBe(401);
    } finally {
      transport.close();
      await own.stop();
    }
  });

  it("off a loopback address the wire routes are refused, unless behind cursor-gateway proxy", async () => {
    const config = loadConfig({
      ...gatewayEnvironment({
        api: "openai-responses",
        fake: provider.fake,
        dataDir: folders.create(),
      }),
      CURSOR_GATEWAY_HOST: "0.0.0.0",
      CURSOR_GATEWAY_PORT: "0",
      CURSOR_GATEWAY_TOKENS: tokens[0]!,
    });
    for (const behindCursorProxy of [false, true]) {
      const running = await startGateway({
        config: { ...config, dataDir: folders.create() },
        behindCursorProxy,
      });
      try {
        const port = new URL(running.url).port;
        const reply = await fetch(`http://127.0.0.1:${port}${wireRoutes.availableModels}`, {
          method: "POST",
          headers: { "content-type": "application/proto" },
          body: new Uint8Array(),
        });
        if (behindCursorProxy) expect(reply.status).toBe(200);
        else {
          expect(reply.status).toBe(403);
          expect(await reply.json()).toEqual({
            code: "permission_denied",
            message:
              "the Cursor wire routes are served only when the gateway listens on a loopback address or runs behind cursor-gateway proxy",
          });
        }
      } finally {
        await running.close();
      }
    }
  });
});
