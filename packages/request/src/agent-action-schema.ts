import { z } from "zod";
import { requestLimits } from "./limits.js";
import {
  boundedList,
  boundedText,
  clientIdSchema,
  nameSchema,
  nonBlankText,
  taskIdSchema,
} from "./schema-primitives.js";
import { userMessageInputSchema } from "./user-message-schema.js";

export const userMessageActionSchema = z.strictObject({
  type: z.literal("user-message"),
  message: userMessageInputSchema,
});

export const toolResultInputSchema = z.strictObject({
  callId: clientIdSchema,
  output: boundedText(requestLimits.maxFileContentBytes),
  isError: z.boolean().optional(),
});

export const toolResultsActionSchema = z.strictObject({
  type: z.literal("tool-results"),
  results: boundedList(toolResultInputSchema, { min: 1 }).superRefine((results, context) => {
    const firstIndex = new Map<string, number>();
    results.forEach((result, index) => {
      const first = firstIndex.get(result.callId);
      if (first === undefined) firstIndex.set(result.callId, index);
      else {
        context.addIssue({
          code: "custom",
          path: [index, "callId"],
          message: `duplicates the callId of results[${first}]`,
        });
      }
    });
  }),
});

export const injectContextActionSchema = z.strictObject({
  type: z.literal("inject-context"),
  injectionId: clientIdSchema,
  expectedRunId: clientIdSchema.optional(),
  text: nonBlankText(requestLimits.maxTextBytes),
});

export const backgroundTaskKinds = ["shell", "subagent"] as const;
export const backgroundTaskStatuses = ["success", "error", "aborted"] as const;

export const backgroundCompletionInputSchema = z.strictObject({
  taskId: taskIdSchema,
  kind: z.enum(backgroundTaskKinds),
  status: z.enum(backgroundTaskStatuses),
  title: nameSchema,
  detail: boundedText(requestLimits.maxFileContentBytes).optional(),
  toolCallId: clientIdSchema.optional(),
});

export const backgroundCompletionActionSchema = z.strictObject({
  type: z.literal("background-completion"),
  completions: boundedList(backgroundCompletionInputSchema, { min: 1 }).superRefine(
    (completions, context) => {
      // One request must not deliver the same completion (same event identity) twice.
      const firstIndex = new Map<string, number>();
      completions.forEach((completion, index) => {
        const key = `${completion.kind}\u0000${completion.taskId}\u0000${completion.toolCallId ?? ""}`;
        const first = firstIndex.get(key);
        if (first === undefined) firstIndex.set(key, index);
        else {
          context.addIssue({
            code: "custom",
            path: [index, "taskId"],
            message: `duplicates the completion completions[${first}] (same kind, taskId and toolCallId)`,
          });
        }
      });
    },
  ),
});

export const summarizeActionSchema = z.strictObject({ type: z.literal("summarize") });

export const agentActionTypes = [
  "user-message",
  "tool-results",
  "inject-context",
  "background-completion",
  "summarize",
] as const;

export const agentActionSchema = z.discriminatedUnion("type", [
  userMessageActionSchema,
  toolResultsActionSchema,
  injectContextActionSchema,
  backgroundCompletionActionSchema,
  summarizeActionSchema,
]);

export type UserMessageAction = z.infer<typeof userMessageActionSchema>;
export type ToolResultInput = z.infer<typeof toolResultInputSchema>;
export type ToolResultsAction = z.infer<typeof toolResultsActionSchema>;
export type InjectContextAction = z.infer<typeof injectContextActionSchema>;
export type BackgroundTaskKind = (typeof backgroundTaskKinds)[number];
export type BackgroundTaskStatus = (typeof backgroundTaskStatuses)[number];
export type BackgroundCompletionInput = z.infer<typeof backgroundCompletionInputSchema>;
export type BackgroundCompletionAction = z.infer<typeof backgroundCompletionActionSchema>;
export type SummarizeAction = z.infer<typeof summarizeActionSchema>;
export type AgentAction = z.infer<typeof agentActionSchema>;
export type AgentActionType = AgentAction["type"];
