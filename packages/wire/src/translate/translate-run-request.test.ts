import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { parseAgentRunRequest } from "@cursor/request";
import { describe, expect, it } from "vitest";
import { fullCursorContext, reorderedCursorContext } from "../__fixtures__/cursor-context.js";
import { testModels } from "../__fixtures__/wire-models.js";
import type { AgentRunRequest } from "../gen/agent_v1_pb.js";
import {
  AgentMode,
  AgentRunRequestSchema,
  BackgroundTaskKind,
  BackgroundTaskStatus,
} from "../gen/agent_v1_pb.js";
import { ClientBlobSource } from "./client-blob-source.js";
import { translateRunRequest } from "./translate-run-request.js";

// The plain-object form of an init (not an already built message), so tests can spread it.
type RunRequestInit = Exclude<MessageInitShape<typeof AgentRunRequestSchema>, AgentRunRequest>;

function translate(init: RunRequestInit, requestId = "req-1") {
  return translateRunRequest({
    runRequest: create(AgentRunRequestSchema, init),
    requestId,
    models: testModels,
    blobs: new ClientBlobSource({ prefetched: [], kv: undefined }),
  });
}

function userTurn({
  text = "hello",
  messageId = "m-1",
  mode = AgentMode.AGENT,
  context = fullCursorContext(),
}: {
  text?: string;
  messageId?: string;
  mode?: AgentMode;
  context?: ReturnType<typeof fullCursorContext>;
} = {}): RunRequestInit {
  return {
    conversationId: "conv-1",
    action: {
      action: {
        case: "userMessageAction",
        value: { userMessage: { text, messageId, mode }, requestContext: context },
      },
    },
  };
}

describe("AgentRunRequest -> the JSON contract's agent run request", () => {
  it("produces a request parseAgentRunRequest accepts", async () => {
    const { body } = await translate(userTurn());
    const parsed = parseAgentRunRequest(body);
    expect(parsed.success).toBe(true);
    expect(body).toMatchObject({
      conversationId: "conv-1",
      mode: "agent",
      model: "byok-gpt",
      action: { type: "user-message", message: { id: "m-1", text: "hello" } },
    });
    expect(body!.runId).toMatch(/^cursor-[0-9a-f]{32}$/);
  });

  it("derives the same run id for a retry (even reordered), another for an edited message", async () => {
    const first = (await translate(userTurn())).body!.runId;
    expect((await translate(userTurn(), "req-2")).body!.runId).toBe(first);
    expect((await translate(userTurn({ context: reorderedCursorContext() }))).body!.runId).toBe(
      first,
    );
    expect((await translate(userTurn({ text: "hello!" }))).body!.runId).not.toBe(first);
    expect((await translate({ ...userTurn(), runId: "client-run-7" })).body!.runId).toBe(
      "client-run-7",
    );
    await expect(translate({ ...userTurn(), runId: "has space" })).rejects.toThrow(
      "run_request.run_id must be 1..128 printable ASCII characters without spaces",
    );
  });

  it("picks the model: requested_model over model_details; empty, default and auto pick the first", async () => {
    for (const modelId of ["", "default", "auto", "AUTO"]) {
      expect((await translate({ ...userTurn(), requestedModel: { modelId } })).model.id).toBe(
        "byok-gpt",
      );
    }
    const chosen = await translate({
      ...userTurn(),
      requestedModel: { modelId: "byok-claude" },
      modelDetails: { modelId: "byok-gpt" },
    });
    expect(chosen.body!.model).toBe("byok-claude");
    expect(
      (await translate({ ...userTurn(), modelDetails: { modelId: "byok-claude" } })).model.id,
    ).toBe("byok-claude");
    const variant = await translate({
      ...userTurn(),
      requestedModel: { modelId: "byok-claude:high", isVariantStringRepresentation: true },
    });
    expect(variant.model.id).toBe("byok-claude");
    const unknown = await translate({ ...userTurn(), requestedModel: { modelId: "o9" } }).catch(
      (e: unknown) => e,
    );
    expect(unknown).toMatchObject({
      code: "not_found",
      detail: { kind: "bad-model-name", detail: "Unknown model ID: o9" },
    });
  });

  it("takes the mode from the message, else from the conversation state", async () => {
    expect((await translate(userTurn({ mode: AgentMode.PLAN }))).mode).toBe("plan");
    const fromState = await translate({
      ...userTurn({ mode: AgentMode.UNSPECIFIED }),
      conversationState: { mode: AgentMode.DEBUG },
    });
    expect(fromState.mode).toBe("debug");
    expect((await translate(userTurn({ mode: AgentMode.UNSPECIFIED }))).mode).toBe("agent");
  });

  it("maps inject context, background completions and summarize; resume and cancel stay with the wire", async () => {
    const inject = await translate({
      conversationId: "conv-1",
      action: {
        action: {
          case: "injectContextAction",
          value: {
            injectionId: "inj-1",
            expectedRunId: "run-9",
            payload: { case: "systemContext", value: { producer: "hooks", content: "CI failed." } },
          },
        },
      },
    });
    expect(inject.body!.action).toEqual({
      type: "inject-context",
      injectionId: "inj-1",
      expectedRunId: "run-9",
      text: "CI failed.",
    });
    const background = await translate({
      conversationId: "conv-1",
      action: {
        action: {
          case: "backgroundTaskCompletionAction",
          value: {
            completions: [
              {
                taskId: "t1",
                kind: BackgroundTaskKind.SHELL,
                status: BackgroundTaskStatus.SUCCESS,
                title: "npm test",
                detail: "ok",
                toolCallId: "call_1",
              },
            ],
          },
        },
      },
    });
    expect(background.body!.action).toEqual({
      type: "background-completion",
      completions: [
        {
          taskId: "t1",
          kind: "shell",
          status: "success",
          title: "npm test",
          detail: "ok",
          toolCallId: "call_1",
        },
      ],
    });
    const summarize = await translate({
      conversationId: "conv-1",
      action: { action: { case: "summarizeAction", value: {} } },
    });
    expect(summarize.body!.action).toEqual({ type: "summarize" });
    expect(summarize.body!.requestContext).toBeUndefined();
    const resume = await translate({
      conversationId: "conv-1",
      action: { action: { case: "resumeAction", value: {} } },
    });
    expect(resume.action.kind).toBe("resume");
    expect(resume.body).toBeUndefined();
    const cancel = await translate({
      conversationId: "conv-1",
      action: { action: { case: "cancelAction", value: { reason: "stop" } } },
    });
    expect(cancel.action).toEqual({ kind: "cancel", reason: "stop" });
  });

  it("names what does not translate precisely", async () => {
    await expect(
      translate({
        conversationId: "conv-1",
        action: {
          action: {
            case: "backgroundTaskCompletionAction",
            value: {
              completions: [
                {
                  taskId: "t",
                  kind: BackgroundTaskKind.UNSPECIFIED,
                  status: BackgroundTaskStatus.SUCCESS,
                },
              ],
            },
          },
        },
      }),
    ).rejects.toThrow("background_task_completion_action.completions[0] has an unknown kind");
    await expect(translate({ ...userTurn(), conversationId: "has spaces" })).rejects.toThrow(
      /conversation_id must be 1\.\.128 characters/,
    );
    await expect(translate(userTurn({ messageId: "with space" }))).rejects.toThrow(
      "the run request is not valid: action.message.id: must be printable ASCII without spaces",
    );
  });
});
