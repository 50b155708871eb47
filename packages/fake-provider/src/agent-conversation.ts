import type { FakeApi } from "./wire-api.js";

/** One step of a conversation as the scripted agent reads it, whatever the wire format. */
export type AgentEvent =
  | { readonly kind: "user"; readonly text: string }
  | { readonly kind: "assistant"; readonly text: string }
  | {
      readonly kind: "tool-call";
      readonly callId: string;
      readonly name: string;
      readonly arguments: string;
    }
  | {
      readonly kind: "tool-result";
      readonly callId: string;
      readonly output: string;
      readonly isError: boolean;
    };

/** A provider request body reduced to what a model needs to decide its next step. */
export interface AgentConversation {
  /** The system prompt / instructions, as one text. */
  readonly instructions: string;
  /** Names of the function tools the request offers, in body order. */
  readonly tools: readonly string[];
  readonly events: readonly AgentEvent[];
}

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const list = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** The text of a content value: a string, or the text parts of a part list (images skipped). */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  return list(content)
    .map((part) => (isRecord(part) ? text(part.text) : ""))
    .filter((piece) => piece !== "")
    .join("\n");
}

/** Reads a body of `api` (already validated by the fake provider's wire checks). */
export function readAgentConversation({
  api,
  body,
}: {
  api: FakeApi;
  body: unknown;
}): AgentConversation {
  const request = isRecord(body) ? body : {};
  switch (api) {
    case "openai-responses":
      return readResponses(request);
    case "openai-chat":
      return readChat(request);
    case "anthropic":
      return readAnthropic(request);
    default: {
      const exhaustive: never = api;
      throw new Error(`unknown API ${String(exhaustive)}`);
    }
  }
}

function readResponses(body: Json): AgentConversation {
  const events: AgentEvent[] = [];
  const input =
    typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
  const instructions = [text(body.instructions)];
  for (const item of list(input)) {
    if (!isRecord(item)) continue;
    const type = item.type ?? "message";
    if (type === "message") {
      const content = contentText(item.content);
      if (item.role === "user") events.push({ kind: "user", text: content });
      else if (item.role === "assistant") events.push({ kind: "assistant", text: content });
      else instructions.push(content);
    } else if (type === "function_call") {
      events.push({
        kind: "tool-call",
        callId: text(item.call_id),
        name: text(item.name),
        arguments: text(item.arguments),
      });
    } else if (type === "function_call_output") {
      events.push({
        kind: "tool-result",
        callId: text(item.call_id),
        output: contentText(item.output),
        isError: false,
      });
    }
  }
  const tools = list(body.tools).flatMap((tool) =>
    isRecord(tool) && tool.type === "function" && typeof tool.name === "string" ? [tool.name] : [],
  );
  return { instructions: instructions.filter((t) => t !== "").join("\n"), tools, events };
}

function readChat(body: Json): AgentConversation {
  const events: AgentEvent[] = [];
  const instructions: string[] = [];
  for (const message of list(body.messages)) {
    if (!isRecord(message)) continue;
    const content = contentText(message.content);
    switch (message.role) {
      case "system":
      case "developer":
        instructions.push(content);
        break;
      case "user":
        events.push({ kind: "user", text: content });
        break;
      case "assistant":
        if (content !== "") events.push({ kind: "assistant", text: content });
        for (const call of list(message.tool_calls)) {
          if (!isRecord(call) || !isRecord(call.function)) continue;
          events.push({
            kind: "tool-call",
            callId: text(call.id),
            name: text(call.function.name),
            arguments: text(call.function.arguments),
          });
        }
        break;
      case "tool":
        events.push({
          kind: "tool-result",
          callId: text(message.tool_call_id),
          output: content,
          isError: false,
        });
        break;
      default:
        break;
    }
  }
  const tools = list(body.tools).flatMap((tool) =>
    isRecord(tool) && isRecord(tool.function) && typeof tool.function.name === "string"
      ? [tool.function.name]
      : [],
  );
  return { instructions: instructions.join("\n"), tools, events };
}

function readAnthropic(body: Json): AgentConversation {
  const events: AgentEvent[] = [];
  for (const message of list(body.messages)) {
    if (!isRecord(message)) continue;
    const blocks =
      typeof message.content === "string"
        ? [{ type: "text", text: message.content }]
        : list(message.content);
    for (const block of blocks) {
      if (!isRecord(block)) continue;
      if (block.type === "text") {
        events.push({
          kind: message.role === "assistant" ? "assistant" : "user",
          text: text(block.text),
        });
      } else if (block.type === "tool_use") {
        events.push({
          kind: "tool-call",
          callId: text(block.id),
          name: text(block.name),
          arguments: JSON.stringify(block.input ?? {}),
        });
      } else if (block.type === "tool_result") {
        events.push({
          kind: "tool-result",
          callId: text(block.tool_use_id),
          output: contentText(block.content),
          isError: block.is_error === true,
        });
      }
    }
  }
  const tools = list(body.tools).flatMap((tool) =>
    isRecord(tool) && typeof tool.name === "string" && (tool.type ?? "custom") === "custom"
      ? [tool.name]
      : [],
  );
  return { instructions: contentText(body.system), tools, events };
}
