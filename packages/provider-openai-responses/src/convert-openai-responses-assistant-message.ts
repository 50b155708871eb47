import type { ModelAssistantMessage, ToolCall, Warning } from "@cursor/run";
import type {
  OpenAIResponsesAssistantMessageItem,
  OpenAIResponsesInputItem,
  OpenAIResponsesReasoningItem,
} from "./openai-responses-api.js";
import { toOpenAIResponsesToolCallId } from "./openai-responses-tool-call-id.js";
import { openAIResponsesProviderId } from "./openai-responses-provider-id.js";
import { readOpenAIResponsesReplayState } from "./openai-responses-replay-state.js";
import type { OpenAIResponsesReplayItem } from "./openai-responses-replay-state.js";

/** Message items of one response are paragraphs of the canonical text (see the stream). */
export const openAIResponsesMessageSeparator = "\n\n";

const functionCall = (call: ToolCall): OpenAIResponsesInputItem => ({
  type: "function_call",
  call_id: toOpenAIResponsesToolCallId(call.callId),
  name: call.name,
  arguments: call.arguments,
});

const textMessage = (text: string): OpenAIResponsesAssistantMessageItem => ({
  type: "message",
  role: "assistant",
  content: text,
});

/** Why `items` do not describe `message` (then they are not used), or undefined when they do. */
function mismatch(message: ModelAssistantMessage, items: readonly OpenAIResponsesReplayItem[]) {
  const texts = items.flatMap((item) => (item.type === "message" ? [item.text] : []));
  if (texts.join(openAIResponsesMessageSeparator) !== message.text) {
    return "their message texts differ from its text";
  }
  const calls = items.flatMap((item) => (item.type === "function_call" ? [item.call_id] : []));
  if (calls.join("\u0000") !== message.toolCalls.map((call) => call.callId).join("\u0000")) {
    return "their function calls differ from its tool calls";
  }
  return undefined;
}

/**
 * The recorded output items in order: reasoning verbatim, each message item with its own text
 * and `phase`, each function call where it sat (name and arguments from the tool call). A
 * reasoning item at the very end is left out: the API refuses a reasoning item without a
 * following item of its response.
 */
function exactItems(
  message: ModelAssistantMessage,
  items: readonly OpenAIResponsesReplayItem[],
): OpenAIResponsesInputItem[] {
  const calls = new Map(message.toolCalls.map((call) => [call.callId, call]));
  const input: OpenAIResponsesInputItem[] = [];
  for (const item of items) {
    switch (item.type) {
      case "reasoning":
        input.push(item);
        break;
      case "message":
        if (item.text === "") break;
        input.push(
          item.phase === undefined
            ? textMessage(item.text)
            : { ...textMessage(item.text), phase: item.phase },
        );
        break;
      case "function_call":
        input.push(functionCall(calls.get(item.call_id)!));
        break;
      default: {
        const exhaustive: never = item;
        throw new TypeError(`unknown replay item ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  while (input.at(-1)?.type === "reasoning") input.pop();
  return input;
}

/** The layout of a message without recorded items: reasoning, its text, then its calls. */
function plainItems(
  message: ModelAssistantMessage,
  reasoning: readonly OpenAIResponsesReasoningItem[],
): OpenAIResponsesInputItem[] {
  const rest: OpenAIResponsesInputItem[] = [
    ...(message.text === "" ? [] : [textMessage(message.text)]),
    ...message.toolCalls.map(functionCall),
  ];
  return rest.length === 0 ? [] : [...reasoning, ...rest];
}

/**
 * An assistant turn in output order. With this provider's replay state (written by the stream)
 * every output item of the response goes back exactly as it came — reasoning items verbatim
 * (the model sees its own earlier reasoning), each message item separately with its `phase`
 * (never merged: gpt-5.3-codex and later ask for the phase on every assistant item), each
 * function call with the arguments exactly as produced. Without such state (another provider's
 * message, state from before phases were kept) the turn is its reasoning items, its text as one
 * message, then one `function_call` per tool call in index order. State that does not describe
 * the message is not used (warning). The plain `reasoning` text has no wire form.
 */
export function convertAssistantMessage({
  message,
  path,
}: {
  message: ModelAssistantMessage;
  path: string;
}): { input: OpenAIResponsesInputItem[]; warnings: Warning[] } {
  const warnings: Warning[] = [];
  const statePath = `${path}.replay.${openAIResponsesProviderId}`;
  // Only this provider's entry: another provider's signatures or reasoning text mean nothing here.
  const state = message.replay[openAIResponsesProviderId];
  let input: OpenAIResponsesInputItem[];
  if (state === undefined) {
    input = plainItems(message, []);
  } else {
    const read = readOpenAIResponsesReplayState(state);
    if (!read.ok) {
      warnings.push({
        type: "dropped",
        message: `replay state is not openai-responses reasoning state (${read.reason})`,
        path: statePath,
      });
      input = plainItems(message, []);
    } else {
      const reasoning = read.items.filter(
        (item): item is OpenAIResponsesReasoningItem => item.type === "reasoning",
      );
      const problem = read.legacy ? undefined : mismatch(message, read.items);
      if (problem !== undefined) {
        warnings.push({
          type: "dropped",
          message: `openai-responses replay items do not match this message (${problem}); sent without them`,
          path: statePath,
        });
        input = plainItems(message, []);
      } else {
        input = read.legacy ? plainItems(message, reasoning) : exactItems(message, read.items);
      }
    }
  }
  if (!input.some((item) => item.type !== "reasoning")) {
    // The API refuses a reasoning item with no item after it, and an empty message is refused
    // too, so an empty turn is left out as a whole.
    warnings.push({
      type: "dropped",
      message: "assistant message without text or tool calls has no wire form",
      path,
    });
    return { input: [], warnings };
  }
  return { input, warnings };
}
