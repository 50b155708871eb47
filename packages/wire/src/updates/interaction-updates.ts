import { create } from "@bufbuild/protobuf";
import type { AgentServerMessage, InteractionUpdate, ToolCall } from "../gen/agent_v1_pb.js";
import {
  AgentServerMessageSchema,
  HeartbeatUpdateSchema,
  InteractionUpdateSchema,
  PartialToolCallUpdateSchema,
  SummaryCompletedUpdateSchema,
  SummaryStartedUpdateSchema,
  SummaryUpdateSchema,
  TextDeltaUpdateSchema,
  ThinkingCompletedUpdateSchema,
  ThinkingDeltaUpdateSchema,
  ToolCallCompletedUpdateSchema,
  ToolCallStartedUpdateSchema,
  TurnEndedUpdateSchema,
} from "../gen/agent_v1_pb.js";

function update(message: InteractionUpdate["message"]): AgentServerMessage {
  return create(AgentServerMessageSchema, {
    message: {
      case: "interactionUpdate",
      value: create(InteractionUpdateSchema, { message }),
    },
  });
}

/** Builders of the `interaction_update` messages the gateway sends (facts §4.1). */
export const interactionUpdates = Object.freeze({
  textDelta: (text: string, { serverNotice = false }: { serverNotice?: boolean } = {}) =>
    update({
      case: "textDelta",
      value: create(TextDeltaUpdateSchema, { text, isServerNotice: serverNotice }),
    }),
  thinkingDelta: (text: string) =>
    update({ case: "thinkingDelta", value: create(ThinkingDeltaUpdateSchema, { text }) }),
  thinkingCompleted: (durationMs: number) =>
    update({
      case: "thinkingCompleted",
      value: create(ThinkingCompletedUpdateSchema, {
        thinkingDurationMs: Math.min(0x7fffffff, Math.max(0, Math.round(durationMs))),
      }),
    }),
  partialToolCall: ({
    callId,
    toolCall,
    argsTextDelta,
    modelCallId,
  }: {
    callId: string;
    toolCall: ToolCall;
    argsTextDelta: string;
    modelCallId: string;
  }) =>
    update({
      case: "partialToolCall",
      value: create(PartialToolCallUpdateSchema, {
        callId,
        toolCall,
        argsTextDelta,
        modelCallId,
      }),
    }),
  toolCallStarted: ({
    callId,
    toolCall,
    modelCallId,
  }: {
    callId: string;
    toolCall: ToolCall;
    modelCallId: string;
  }) =>
    update({
      case: "toolCallStarted",
      value: create(ToolCallStartedUpdateSchema, {
        callId,
        toolCall,
        modelCallId,
      }),
    }),
  toolCallCompleted: ({
    callId,
    toolCall,
    modelCallId,
  }: {
    callId: string;
    toolCall: ToolCall;
    modelCallId: string;
  }) =>
    update({
      case: "toolCallCompleted",
      value: create(ToolCallCompletedUpdateSchema, {
        callId,
        toolCall,
        modelCallId,
      }),
    }),
  summaryStarted: () =>
    update({ case: "summaryStarted", value: create(SummaryStartedUpdateSchema, {}) }),
  summary: (summary: string) =>
    update({ case: "summary", value: create(SummaryUpdateSchema, { summary }) }),
  summaryCompleted: () =>
    update({ case: "summaryCompleted", value: create(SummaryCompletedUpdateSchema, {}) }),
  heartbeat: () => update({ case: "heartbeat", value: create(HeartbeatUpdateSchema, {}) }),
  turnEnded: ({
    inputTokens,
    outputTokens,
    cacheReadTokens,
    cacheWriteTokens,
  }: {
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
  }) =>
    update({
      case: "turnEnded",
      value: create(TurnEndedUpdateSchema, {
        inputTokens: BigInt(inputTokens),
        outputTokens: BigInt(outputTokens),
        cacheReadTokens: BigInt(cacheReadTokens),
        cacheWriteTokens: BigInt(cacheWriteTokens),
      }),
    }),
});
