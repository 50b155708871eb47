import type {
  AssistantMessage,
  ContentPart,
  ImagePart,
  JsonValue,
  RequestContextMessage,
  RuntimeKind,
  RuntimeMessage,
  SummaryMessage,
  ToolCall,
  ToolResultMessage,
  UserMessage,
} from "./canonical-message.js";
import {
  assistantMessageId,
  requestContextMessageId,
  runtimeMessageId,
  summaryMessageId,
  toolResultMessageId,
} from "./message-ids.js";

// Builders fill in the id (from the id catalog), role and origin of each kind, so callers only
// say what is specific to the message.

export function createRequestContextMessage({
  eventId,
  digest,
  text,
}: {
  eventId: string;
  digest: string;
  text: string;
}): RequestContextMessage {
  return {
    kind: "request-context",
    id: requestContextMessageId(eventId),
    role: "user",
    origin: "prompt",
    eventId,
    digest,
    text,
  };
}

export function createRuntimeMessage({
  eventId,
  runtimeKind,
  content,
}: {
  eventId: string;
  runtimeKind: RuntimeKind;
  content: ContentPart[];
}): RuntimeMessage {
  return {
    kind: "runtime",
    id: runtimeMessageId(eventId),
    role: "user",
    origin: "runtime",
    eventId,
    runtimeKind,
    content,
  };
}

export function createUserMessage({
  id,
  content,
}: {
  id: string;
  content: ContentPart[];
}): UserMessage {
  return { kind: "user", id, role: "user", origin: "user", content };
}

export function createSummaryMessage({
  summarizedEpoch,
  text,
}: {
  summarizedEpoch: number;
  text: string;
}): SummaryMessage {
  return {
    kind: "summary",
    id: summaryMessageId(summarizedEpoch),
    role: "user",
    origin: "prompt",
    summarizedEpoch,
    text,
  };
}

export function createAssistantMessage({
  runId,
  step,
  text = "",
  reasoning = "",
  toolCalls = [],
  replay = {},
}: {
  runId: string;
  step: number;
  text?: string;
  reasoning?: string;
  toolCalls?: ToolCall[];
  replay?: Record<string, JsonValue>;
}): AssistantMessage {
  return {
    kind: "assistant",
    id: assistantMessageId({ runId, step }),
    role: "assistant",
    origin: "assistant",
    text,
    reasoning,
    toolCalls,
    replay,
  };
}

export function createToolResultMessage({
  callId,
  name,
  content,
  isError = false,
  image,
}: {
  callId: string;
  name: string;
  content: string;
  isError?: boolean;
  image?: ImagePart;
}): ToolResultMessage {
  return {
    kind: "tool-result",
    id: toolResultMessageId(callId),
    role: "tool",
    origin: "tool",
    callId,
    name,
    content,
    isError,
    ...(image === undefined ? {} : { image }),
  };
}
