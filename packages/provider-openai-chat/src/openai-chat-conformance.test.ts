import { describeProviderConformance } from "@cursor/testkit/vitest";
import type { ChatBody } from "./openai-chat-api.js";
import { createOpenAIChatAdapter } from "./openai-chat-adapter.js";

// History is `messages` after the instructions message; instructions and tools are the static
// parts (`tool_choice` is left out: it changes with the mode by design).
const historyItems = (body: ChatBody) => body.messages.slice(1);
const staticParts = (body: ChatBody) => ({ instructions: body.messages[0], tools: body.tools });

describeProviderConformance<ChatBody>({
  adapter: createOpenAIChatAdapter(),
  historyItems,
  staticParts,
});

describeProviderConformance<ChatBody>({
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
