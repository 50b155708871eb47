import { describeProviderConformance } from "@cursor/testkit/vitest";
import { createOpenAIResponsesReplayState } from "./openai-responses-replay-state.js";
import { createOpenAIResponsesAdapter } from "./openai-responses-adapter.js";
import type { OpenAIResponsesBody } from "./openai-responses-api.js";

// The @cursor/testkit laws over generated conversations: deterministic bytes, no input
// mutation, `input` append-only across requests, instructions + tools (the cached head)
// unchanged as history grows and modes switch, every canonical content kind accepted.
describeProviderConformance<OpenAIResponsesBody>({
  adapter: createOpenAIResponsesAdapter({
    apiKey: "unused",
    promptCacheRetention: "24h",
    reasoningEffort: "medium",
  }),
  historyItems: (body) => body.input,
  staticParts: (body) => ({ instructions: body.instructions, tools: body.tools }),
  // What this adapter's stream puts in the replay bag, so generated assistant messages replay
  // their output items like real ones: reasoning, a commentary message, the calls.
  replayState: ({ reasoning, messageId, text, callIds }) =>
    createOpenAIResponsesReplayState([
      {
        type: "reasoning",
        id: `rs_${messageId}`,
        summary: [{ type: "summary_text", text: reasoning }],
        encrypted_content: `enc_${Buffer.from(reasoning).toString("base64")}`,
      },
      ...(text === "" ? [] : [{ type: "message" as const, text, phase: "commentary" as const }]),
      ...callIds.map((callId) => ({ type: "function_call" as const, call_id: callId })),
    ]),
});
