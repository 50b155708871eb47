import type { AgentAction, AgentMode, RequestContextInput } from "@cursor/request";
import { compileRequestContext, parseAgentRunRequest } from "@cursor/request";
import { ConnectError } from "../connect/connect-error.js";
import type { AgentRunRequest } from "../gen/agent_v1_pb.js";
import type { AgentRunRequestJson, WireModel } from "../ports.js";
import type { ClientBlobSource } from "./client-blob-source.js";
import { deriveRunId } from "./derive-run-id.js";
import { resolveContextParts } from "./request-context-parts.js";
import { requestedModelId, resolveModel } from "./resolve-model.js";
import type { CursorAction } from "./translate-action.js";
import { translateAction } from "./translate-action.js";
import { translateMode } from "./translate-mode.js";
import type { ContextWarning } from "./translate-request-context.js";
import { translateRequestContext } from "./translate-request-context.js";

const conversationIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** A run request, translated: what the wire sends to the conversation service, and why. */
export interface TranslatedRunRequest {
  readonly conversationId: string;
  readonly model: WireModel;
  readonly mode: AgentMode;
  readonly action: CursorAction;
  /** The JSON-contract request, for every action the service runs as it is (not resume, cancel). */
  readonly body: AgentRunRequestJson | undefined;
  readonly warnings: readonly ContextWarning[];
}

/** Validates a body the way the service will, so a translation problem is named precisely. */
export function checkedBody(body: AgentRunRequestJson): AgentRunRequestJson {
  const parsed = parseAgentRunRequest(body);
  if (!parsed.success) {
    throw new ConnectError({
      code: "invalid_argument",
      message: `the run request is not valid: ${parsed.issues
        .slice(0, 5)
        .map((issue) => `${issue.path}: ${issue.message}`)
        .join("; ")}${parsed.issues.length > 5 ? ` (and ${parsed.issues.length - 5} more)` : ""}`,
    });
  }
  return parsed.data;
}

/**
 * Translates Cursor's `AgentRunRequest` into the project's JSON-contract agent run request:
 * conversation id, run id (`run_id`, else derived so a retry is the same run), mode, model,
 * the action and, for a user message, the conversation-level request context (rules, skills,
 * subagents, env, git, MCP; `request_context_parts` blobs resolved).
 */
export async function translateRunRequest({
  runRequest,
  requestId,
  models,
  blobs,
}: {
  runRequest: AgentRunRequest;
  requestId: string;
  models: readonly WireModel[];
  blobs: ClientBlobSource;
}): Promise<TranslatedRunRequest> {
  const conversationId = runRequest.conversationId ?? "";
  if (conversationId === "") {
    throw new ConnectError({
      code: "invalid_argument",
      message: "run_request.conversation_id is required",
    });
  }
  if (!conversationIdPattern.test(conversationId)) {
    throw new ConnectError({
      code: "invalid_argument",
      message:
        "run_request.conversation_id must be 1..128 characters of A-Z, a-z, 0-9, '.', '_', ':', '-'",
    });
  }
  const model = resolveModel({
    modelId: requestedModelId({
      requestedModel: runRequest.requestedModel,
      modelDetails: runRequest.modelDetails,
    }),
    models,
  });
  const action = await translateAction({ action: runRequest.action, blobs });
  const mode = translateMode({
    messageMode: action.kind === "user-message" ? action.userMessage.mode : undefined,
    stateMode: runRequest.conversationState?.mode,
  });
  const base = { conversationId, model, mode, action };
  switch (action.kind) {
    case "cancel":
    case "resume":
      return { ...base, body: undefined, warnings: [] };
    case "user-message": {
      const parts = await resolveContextParts({
        requestContext: action.requestContext,
        references: runRequest.action?.requestContextParts,
        blobs,
      });
      const translated =
        parts === undefined
          ? undefined
          : translateRequestContext({
              ...parts,
              // MCP definitions of the run request itself, when the context carries none.
              mcpTools:
                parts.mcpTools.length > 0 ? parts.mcpTools : (runRequest.mcpTools?.mcpTools ?? []),
            });
      const jsonAction: AgentAction = { type: "user-message", message: action.message };
      const body = bodyFor({
        conversationId,
        model,
        mode,
        action: jsonAction,
        requestContext: translated?.context,
        clientRunId: runRequest.runId,
        identity: (requestContext) => ({
          mode,
          action: jsonAction,
          // The compiled digest, so a reordered but equal context is the same run.
          context: compileRequestContext(requestContext)?.digest ?? null,
        }),
      });
      return { ...base, body, warnings: translated?.warnings ?? [] };
    }
    case "summarize":
      return {
        ...base,
        body: bodyFor({
          conversationId,
          model,
          mode,
          action: { type: "summarize" },
          requestContext: undefined,
          clientRunId: runRequest.runId,
          // Each summarize request is its own run; a transport retry reuses its request id.
          identity: () => ({ summarize: requestId }),
        }),
        warnings: [],
      };
    case "inject-context":
    case "background-completion":
      return {
        ...base,
        body: bodyFor({
          conversationId,
          model,
          mode,
          action: action.action,
          requestContext: undefined,
          clientRunId: runRequest.runId,
          identity: () => ({ mode, action: action.action }),
        }),
        warnings: [],
      };
    default: {
      const exhaustive: never = action;
      throw new Error(`unknown action ${JSON.stringify(exhaustive)}`);
    }
  }
}

function bodyFor({
  conversationId,
  model,
  mode,
  action,
  requestContext,
  clientRunId,
  identity,
}: {
  conversationId: string;
  model: WireModel;
  mode: AgentMode;
  action: AgentAction;
  requestContext: RequestContextInput | undefined;
  clientRunId: string | undefined;
  identity: (requestContext: RequestContextInput | undefined) => unknown;
}): AgentRunRequestJson {
  const draft: AgentRunRequestJson = {
    conversationId,
    runId: "pending",
    mode,
    model: model.id,
    action,
    ...(requestContext === undefined ? {} : { requestContext }),
  };
  // Validate first: the run id derivation compiles the request context, which must be valid.
  const checked = checkedBody(draft);
  return {
    ...checked,
    runId: deriveRunId({ clientRunId, conversationId, identity: identity(checked.requestContext) }),
  };
}
