import { describe, expect, it } from "vitest";
import {
  fileContent,
  loadConversationId,
  loadFilePath,
  locateBody,
  toolResultsBody,
  userMessageBody,
} from "./load-requests.js";

describe("load requests", () => {
  it("names the conversation's file in the user message and answers the call with it", () => {
    const conversationId = loadConversationId(7);
    expect(conversationId).toBe("load-007");
    const user = userMessageBody({ conversationId, turn: 3 });
    expect(user.runId).toBe("load-007-run-3");
    expect(user.action).toEqual({
      type: "user-message",
      message: {
        id: "load-007-message-3",
        text: "Read src/load/load-007/turn-3.ts and tell me what it exports.",
      },
    });
    const results = toolResultsBody({ conversationId, turn: 3, callId: "call_5", chars: 400 });
    expect(results.runId).toBe(user.runId);
    expect(results.action).toEqual({
      type: "tool-results",
      results: [
        {
          callId: "call_5",
          output: fileContent({ path: loadFilePath({ conversationId, turn: 3 }), chars: 400 }),
        },
      ],
    });
  });

  it("writes a file of about the size asked, the same every time, with exports", () => {
    const path = "src/load/load-001/turn-1.ts";
    const text = fileContent({ path, chars: 1500 });
    expect(text).toBe(fileContent({ path, chars: 1500 }));
    expect(text.length).toBeGreaterThanOrEqual(1500);
    expect(text.length).toBeLessThan(1600);
    expect(text).toMatch(/^\/\/ src\/load\/load-001\/turn-1\.ts\nexport const value0 = /);
    expect(fileContent({ path, chars: 0 })).toContain("export const value0");
  });

  it("finds a provider body's conversation and turn from the last path it mentions", () => {
    const body = JSON.stringify({
      input: [
        { role: "user", content: "Read src/load/load-012/turn-1.ts and tell me" },
        { type: "function_call", arguments: '{"path":"src/load/load-012/turn-1.ts"}' },
        { role: "user", content: "Read src/load/load-012/turn-2.ts and tell me" },
      ],
    });
    expect(locateBody(body)).toEqual({ conversationId: "load-012", turn: 2 });
    expect(locateBody(JSON.stringify({ input: "hello" }))).toBeUndefined();
  });
});
