import type {
  BackgroundCompletionAction,
  BackgroundCompletionInput,
  InjectContextAction,
  UserMessageInput,
} from "@cursor/request";
import { ConnectError } from "../connect/connect-error.js";
import type {
  BackgroundTaskCompletionAction,
  ConversationAction,
  InjectContextAction as CursorInjectContextAction,
  RequestContext,
  UserMessage,
} from "../gen/agent_v1_pb.js";
import { BackgroundTaskKind, BackgroundTaskStatus } from "../gen/agent_v1_pb.js";
import type { ClientBlobSource } from "./client-blob-source.js";
import { translateUserMessage } from "./translate-user-message.js";

/** A Cursor conversation action, sorted into what the wire does with it. */
export type CursorAction =
  | {
      readonly kind: "user-message";
      readonly message: UserMessageInput;
      /** The message as the client sent it (for the UI turn). */
      readonly userMessage: UserMessage;
      readonly requestContext: RequestContext | undefined;
    }
  | { readonly kind: "resume"; readonly requestContext: RequestContext | undefined }
  | { readonly kind: "cancel"; readonly reason: string }
  | { readonly kind: "summarize" }
  | { readonly kind: "inject-context"; readonly action: InjectContextAction }
  | { readonly kind: "background-completion"; readonly action: BackgroundCompletionAction };

/** Snake-case names of the oneof cases the gateway does not implement. */
const unsupportedNames: Readonly<Record<string, string>> = {
  shellCommandAction: "shell_command_action",
  startPlanAction: "start_plan_action",
  executePlanAction: "execute_plan_action",
  asyncAskQuestionCompletionAction: "async_ask_question_completion_action",
  cancelSubagentAction: "cancel_subagent_action",
  backgroundShellAction: "background_shell_action",
  backgroundSubagentAction: "background_subagent_action",
  subscriptionNotificationAction: "subscription_notification_action",
  goalContinuationAction: "goal_continuation_action",
};

function unimplemented(name: string): ConnectError {
  return new ConnectError({
    code: "unimplemented",
    message: `${name} is not supported by this gateway`,
    detail: {
      kind: "custom-message",
      title: "Action not supported",
      detail: `This gateway does not implement ${name} yet.`,
      retryable: false,
    },
  });
}

const taskKinds: ReadonlyMap<BackgroundTaskKind, BackgroundCompletionInput["kind"]> = new Map([
  [BackgroundTaskKind.SHELL, "shell"],
  [BackgroundTaskKind.SUBAGENT, "subagent"],
]);

const taskStatuses: ReadonlyMap<BackgroundTaskStatus, BackgroundCompletionInput["status"]> =
  new Map([
    [BackgroundTaskStatus.SUCCESS, "success"],
    [BackgroundTaskStatus.ERROR, "error"],
    [BackgroundTaskStatus.ABORTED, "aborted"],
  ]);

function backgroundCompletion(action: BackgroundTaskCompletionAction): BackgroundCompletionAction {
  if (action.completions.length === 0) {
    throw new ConnectError({
      code: "invalid_argument",
      message: "background_task_completion_action has no completions",
    });
  }
  return {
    type: "background-completion",
    completions: action.completions.map((completion, index) => {
      const kind = taskKinds.get(completion.kind);
      const status = taskStatuses.get(completion.status);
      if (kind === undefined || status === undefined) {
        throw new ConnectError({
          code: "invalid_argument",
          message: `background_task_completion_action.completions[${index}] has ${
            kind === undefined ? "an unknown kind" : "an unknown status"
          }`,
        });
      }
      const detail = completion.detail ?? "";
      const toolCallId = completion.toolCallId ?? "";
      return {
        taskId: completion.taskId,
        kind,
        status,
        title:
          completion.title.trim() === "" ? `${kind} task ${completion.taskId}` : completion.title,
        ...(detail === "" ? {} : { detail }),
        ...(toolCallId === "" ? {} : { toolCallId }),
      };
    }),
  };
}

function injectContext(action: CursorInjectContextAction): InjectContextAction {
  const payload = action.payload;
  const text =
    payload.case === "userContext"
      ? (payload.value.userMessage?.text ?? "")
      : payload.case === "systemContext"
        ? payload.value.content
        : "";
  if (action.injectionId === "") {
    throw new ConnectError({
      code: "invalid_argument",
      message: "inject_context_action.injection_id is required",
    });
  }
  if (text.trim() === "") {
    throw new ConnectError({
      code: "invalid_argument",
      message: "inject_context_action carries no text (user_context or system_context)",
    });
  }
  return {
    type: "inject-context",
    injectionId: action.injectionId,
    ...(action.expectedRunId === "" ? {} : { expectedRunId: action.expectedRunId }),
    text,
  };
}

/**
 * Sorts a `ConversationAction` into the JSON contract's actions (user message, inject context,
 * background completion, summarize), resume and cancel (which the wire handles itself), or an
 * `unimplemented` error naming the action. A case this schema does not know is named by its
 * field number.
 */
export async function translateAction({
  action,
  blobs,
}: {
  action: ConversationAction | undefined;
  blobs: ClientBlobSource;
}): Promise<CursorAction> {
  if (action === undefined) {
    throw new ConnectError({ code: "invalid_argument", message: "run_request.action is missing" });
  }
  const chosen = action.action;
  switch (chosen.case) {
    case "userMessageAction": {
      const userMessage = chosen.value.userMessage;
      if (userMessage === undefined) {
        throw new ConnectError({
          code: "invalid_argument",
          message: "user_message_action.user_message is missing",
        });
      }
      return {
        kind: "user-message",
        message: await translateUserMessage({ message: userMessage, blobs }),
        userMessage,
        requestContext: chosen.value.requestContext,
      };
    }
    case "resumeAction":
      return { kind: "resume", requestContext: chosen.value.requestContext };
    case "cancelAction":
      return { kind: "cancel", reason: chosen.value.reason };
    case "summarizeAction":
      return { kind: "summarize" };
    case "injectContextAction":
      return { kind: "inject-context", action: injectContext(chosen.value) };
    case "backgroundTaskCompletionAction":
      return { kind: "background-completion", action: backgroundCompletion(chosen.value) };
    case "shellCommandAction":
    case "startPlanAction":
    case "executePlanAction":
    case "asyncAskQuestionCompletionAction":
    case "cancelSubagentAction":
    case "backgroundShellAction":
    case "backgroundSubagentAction":
    case "subscriptionNotificationAction":
    case "goalContinuationAction":
      throw unimplemented(unsupportedNames[chosen.case] ?? chosen.case);
    case undefined: {
      // Fields outside the oneof (triggering_auth_id, triggering_user_info) are not the action.
      const unknown = action.$unknown
        ?.map((field) => field.no)
        .filter((no) => no !== 11 && no !== 15);
      throw unknown !== undefined && unknown.length > 0
        ? unimplemented(`conversation action field ${unknown[0]}`)
        : new ConnectError({
            code: "invalid_argument",
            message: "run_request.action has no action",
          });
    }
    default: {
      const exhaustive: never = chosen;
      throw new Error(`unknown action ${JSON.stringify(exhaustive)}`);
    }
  }
}
