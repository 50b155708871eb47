import {
  createAssistantMessage,
  createRequestContextMessage,
  createRuntimeMessage,
  sha256Hex,
} from "@cursor/run";
import type { CanonicalMessage, ModelUserMessage } from "@cursor/run";
import { generateAgentSession } from "@cursor/testkit";
import type { RunRequestBody } from "@cursor/testkit";
import { describe, expect, it } from "vitest";
import { projectVariant, rebuildModelRequest } from "./projection-variants.js";

const contextMessage = (text: string) =>
  createRequestContextMessage({
    eventId: `ctx.${sha256Hex(text).slice(0, 8)}`,
    digest: sha256Hex(text),
    text,
  });
const userTurn = (n: number) =>
  createRuntimeMessage({
    eventId: `turn.m${n}`,
    runtimeKind: "user-turn",
    content: [{ type: "text", text: `question ${n}` }],
  });
const background = createRuntimeMessage({
  eventId: "bg.t1",
  runtimeKind: "background-completion",
  content: [{ type: "text", text: "tests passed" }],
});
const answer = (n: number) =>
  createAssistantMessage({ runId: `run-${n}`, step: 0, text: `answer ${n}` });

// Context A, turn 1, background, turn 2 (same context), context B, turn 3.
const history: CanonicalMessage[] = [
  contextMessage("<rules>A</rules>"),
  userTurn(1),
  answer(1),
  background,
  answer(2),
  userTurn(2),
  answer(3),
  contextMessage("<rules>B</rules>"),
  userTurn(3),
];

const session = generateAgentSession({ seed: 1, turns: 2, features: { compaction: false } });
const firstTurn = session.events.find((event) => event.type === "user-turn")!;
const request: RunRequestBody = { ...firstTurn.body, timestamp: "2026-11-29T10:42:13+01:00" };
const input = { messages: history, request, promptContext: request.requestContext, model: "gpt-5" };

const texts = (messages: readonly { role: string }[]) =>
  messages
    .filter((m): m is ModelUserMessage => m.role === "user")
    .map((m) => (m.content[0]?.type === "text" ? m.content[0].text : ""));

describe("projection variants", () => {
  it("ours is the gateway's projection of the history as it is", () => {
    expect(projectVariant({ variant: "ours", ...input })).toEqual(rebuildModelRequest(input));
    expect(texts(projectVariant({ variant: "ours", ...input }).messages)).toEqual([
      "<rules>A</rules>",
      "question 1",
      "tests passed",
      "question 2",
      "<rules>B</rules>",
      "question 3",
    ]);
  });

  it("naive moves the latest context and the date into the instructions", () => {
    const ours = rebuildModelRequest(input);
    const naive = projectVariant({ variant: "naive-date", ...input });
    expect(texts(naive.messages)).toEqual([
      "question 1",
      "tests passed",
      "question 2",
      "question 3",
    ]);
    expect(naive.instructions).toBe(
      `${ours.instructions}\n\n<rules>B</rules>\n\nToday's date: 2026-11-29.`,
    );
    expect(naive.tools).toEqual(ours.tools);
    expect(projectVariant({ variant: "naive-time", ...input }).instructions).toMatch(
      /<rules>B<\/rules>\n\nCurrent time: 2026-11-29 10:42 \(\+01:00\)\.$/,
    );
  });

  it("no-dedup re-sends the latest context before every user turn", () => {
    const resent = projectVariant({ variant: "no-dedup", ...input });
    expect(texts(resent.messages)).toEqual([
      "<rules>A</rules>",
      "question 1",
      "tests passed",
      "<rules>A</rules>",
      "question 2",
      "<rules>B</rules>",
      "question 3",
    ]);
  });

  it("keeps every variant append-only as the history grows", () => {
    for (const variant of ["ours", "naive-date", "no-dedup"] as const) {
      const shorter = projectVariant({ variant, ...input, messages: history.slice(0, 7) });
      const longer = projectVariant({ variant, ...input });
      expect(longer.messages.slice(0, shorter.messages.length - 1)).toEqual(
        shorter.messages.slice(0, -1),
      );
    }
  });
});
