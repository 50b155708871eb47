import { describe, expect, it } from "vitest";
import { MemoryConversationService } from "./__fixtures__/memory-conversation-service.js";
import { tick } from "./__fixtures__/raw-wire.js";
import { createCursorWire } from "./cursor-wire.js";
import type { CursorWireOptions } from "./cursor-wire.js";
import { BackgroundTaskKind, BackgroundTaskStatus } from "./gen/agent_v1_pb.js";
import { ManualTimers } from "./session/wire-timers.js";
import { createInProcessFetch } from "./testing/in-process-fetch.js";
import { ScriptedIdeClient } from "./testing/scripted-ide-client.js";
import type { ScriptedIdeClientOptions } from "./testing/scripted-ide-client.js";
import type { ToolBridgeFactory } from "./turn/tool-bridge.js";

function gateway({
  wire: wireOptions = {},
  ide: ideOptions = {},
}: { wire?: Partial<CursorWireOptions>; ide?: Partial<ScriptedIdeClientOptions> } = {}) {
  const service = new MemoryConversationService();
  const wire = createCursorWire({ ports: service.ports(), ...wireOptions });
  const ide = new ScriptedIdeClient({
    fetch: createInProcessFetch(wire),
    baseUrl: "http://gateway",
    ...ideOptions,
  });
  return { service, wire, ide };
}

const messages = (service: MemoryConversationService, id: string) =>
  service.store.get(id)?.messages ?? [];

describe("actions end to end", () => {
  it("inject_context_action appends one runtime event, checked against the last accepted run", async () => {
    const { service, ide } = gateway();
    await ide.runTurn({ conversationId: "a-1", text: "start", runId: "run-start" });
    const turn = await ide.runTurn({
      conversationId: "a-1",
      action: {
        action: {
          case: "injectContextAction",
          value: {
            injectionId: "inj-1",
            expectedRunId: "run-start",
            payload: {
              case: "systemContext",
              value: { producer: "ci", content: "The build is red." },
            },
          },
        },
      },
    });
    expect(turn.end).toEqual({});
    const injected = messages(service, "a-1").filter((m) => m.id === "runtime:inject.inj-1");
    expect(injected).toHaveLength(1);
    expect(messages(service, "a-1").filter((m) => m.kind === "request-context")).toHaveLength(0);
    const stale = await ide.runTurn({
      conversationId: "a-1",
      action: {
        action: {
          case: "injectContextAction",
          value: {
            injectionId: "inj-2",
            expectedRunId: "run-start",
            payload: { case: "systemContext", value: { producer: "ci", content: "Again." } },
          },
        },
      },
    });
    expect(stale.end.error?.code).toBe("failed_precondition");
  });

  it("background_task_completion_action appends one runtime message per new completion", async () => {
    const { service, ide } = gateway();
    await ide.runTurn({ conversationId: "a-2", text: "start" });
    const completion = {
      action: {
        case: "backgroundTaskCompletionAction" as const,
        value: {
          completions: [
            {
              taskId: "t1",
              kind: BackgroundTaskKind.SHELL,
              status: BackgroundTaskStatus.SUCCESS,
              title: "npm test",
            },
          ],
        },
      },
    };
    await ide.runTurn({ conversationId: "a-2", action: completion });
    const calls = service.provider.requests.length;
    const repeat = await ide.runTurn({ conversationId: "a-2", action: completion });
    expect(repeat.end).toEqual({});
    expect(messages(service, "a-2").filter((m) => m.id === "runtime:bg.shell.t1.-")).toHaveLength(
      1,
    );
    expect(service.provider.requests).toHaveLength(calls);
  });

  it("resume_action runs the conversation's pending tool round and continues the run", async () => {
    let hang = true;
    const bridge: ToolBridgeFactory = () => ({
      runRound: (calls) =>
        hang
          ? new Promise(() => undefined)
          : Promise.resolve(
              calls.map((call) => ({
                callId: call.callId,
                output: "file contents",
                isError: false,
              })),
            ),
      deliver: () => undefined,
    });
    const { service, ide } = gateway({ wire: { toolBridge: bridge } });
    service.provider.script(
      { toolCalls: [{ name: "read_file", arguments: '{"path":"/a"}' }] },
      { text: "It says hello." },
    );
    const first = await ide.runTurn({
      conversationId: "a-3",
      text: "read /a",
      onMessage: (message) =>
        message.message.case === "interactionUpdate" &&
        message.message.value.message.case === "toolCallStarted"
          ? "cancel"
          : undefined,
    });
    expect(first.end.error?.code).toBe("canceled");
    const pending = service.storedHead("a-3")!.history.pendingToolCalls();
    expect(pending).toHaveLength(1);
    hang = false;
    const resumed = await ide.runTurn({
      conversationId: "a-3",
      action: { action: { case: "resumeAction", value: {} } },
    });
    expect(resumed.end).toEqual({});
    expect(resumed.text).toBe("It says hello.");
    expect(service.storedHead("a-3")!.history.pendingToolCalls()).toHaveLength(0);
    expect(messages(service, "a-3").find((m) => m.kind === "tool-result")).toMatchObject({
      content: "file contents",
    });
    const nothing = await ide.runTurn({
      conversationId: "a-3",
      action: { action: { case: "resumeAction", value: {} } },
    });
    expect(nothing.end).toEqual({});
    expect(nothing.sequence).toEqual(["turnEnded", "end"]);
  });

  it("a cancel_action as the run request cancels the conversation's active run", async () => {
    const { service, ide } = gateway();
    let release!: () => void;
    service.provider.script({ text: "slow", hold: new Promise<void>((r) => (release = r)) });
    const running = ide.runTurn({ conversationId: "a-4", text: "long task" });
    while (!service.active.has("a-4")) await tick();
    const cancel = await ide.runTurn({
      conversationId: "a-4",
      action: { action: { case: "cancelAction", value: { reason: "stop" } } },
    });
    expect(cancel.end.error).toMatchObject({
      code: "canceled",
      message: "cancelled by the client: stop",
    });
    expect((await running).end.error?.code).toBe("canceled");
    release();
    expect(service.store.has("a-4")).toBe(false);
  });

  it("answers a call the IDE cannot show without showing it; the round still closes", async () => {
    const { service, ide } = gateway();
    service.provider.script(
      { toolCalls: [{ name: "web_search", arguments: '{"query":"vitest"}' }] },
      { text: "Searching is not available here." },
    );
    const turn = await ide.runTurn({ conversationId: "a-6", text: "search" });
    expect(turn.end).toEqual({});
    expect(turn.sequence.filter((kind) => kind.toLowerCase().includes("toolcall"))).toEqual([]);
    expect(messages(service, "a-6").find((m) => m.kind === "tool-result")).toMatchObject({
      name: "web_search",
      isError: true,
    });
  });

  it("stops after the configured number of tool rounds and hands back to the user", async () => {
    const { service, ide } = gateway({ wire: { maxToolRounds: 2 } });
    const call = { toolCalls: [{ name: "glob", arguments: '{"pattern":"*"}' }] };
    service.provider.script(call, call, call, call);
    const turn = await ide.runTurn({ conversationId: "a-5", text: "loop" });
    expect(turn.end).toEqual({});
    expect(turn.text).toContain("[Stopped after 2 tool rounds; send a message to continue.]");
    expect(service.provider.requests).toHaveLength(3);
  });
});

describe("the KV barrier fails the turn", () => {
  it("on a KV error: no checkpoint is published, the stream ends unavailable", async () => {
    const { ide } = gateway({ ide: { failBlobSet: () => "quota exceeded" } });
    const turn = await ide.runTurn({ conversationId: "b-1", text: "hi" });
    expect(turn.checkpoints).toEqual([]);
    expect(turn.end.error?.code).toBe("unavailable");
    expect(turn.end.error?.message).toContain("quota exceeded");
  });

  it("when the client does not acknowledge within 10 s: deadline_exceeded", async () => {
    const timers = new ManualTimers();
    const { ide } = gateway({ wire: { timers }, ide: { ignoreBlobSets: true } });
    const turn = ide.runTurn({
      conversationId: "b-2",
      text: "hi",
      onMessage: (message) => {
        if (message.message.case === "kvServerMessage") setImmediate(() => timers.advance(10_000));
        return undefined;
      },
    });
    const result = await turn;
    expect(result.checkpoints).toEqual([]);
    expect(result.end.error?.code).toBe("deadline_exceeded");
    expect(result.end.error?.message).toContain("within 10000 ms");
  });
});
