import { describeProviderConformance } from "@cursor/testkit/vitest";
import type { OpenAIChatBody } from "./openai-chat-api.js";
import { createOpenAIChatAdapter } from "./openai-chat-adapter.js";

// History is `messages` after the instructions message; instructions and tools are the static
// parts (`tool_choice` is left out: it changes with the mode by design).
const historyItems = (body: OpenAIChatBody) => body.messages.slice(1);
const staticParts = (body: OpenAIChatBody) => ({
  instructions: body.messages[0],
  tools: body.tools,
});

describeProviderConformance<OpenAIChatBody>({
  adapter: createOpenAIChatAdapter(),
  historyItems,
  staticParts,
});

describeProviderConformance<OpenAIChatBody>({
  name: "openai-chat conformance (reasoning_content replay, developer role, 24h retention)",
  adapter: createOpenAIChatAdapter({
    replayReasoningContent: true,
    systemRole: "developer",
    promptCacheRetention: "24h",
  }),
  historyItems,
  staticParts,
  replayState: ({ reasoning }) => ({ reasoningContent: reasoning }),
});
