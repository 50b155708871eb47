import { describe, expect, it } from "vitest";
import { loadFixture } from "./__fixtures__/load-fixture.js";
import { diffRequestBodies } from "./diff-request-bodies.js";

type Body = Record<string, unknown>;
type Item = Record<string, unknown>;

const responses = (n: number) => loadFixture(`openai-responses-call-${n}`);
const input = (body: Body) => body.input as Item[];
const withInput = (body: Body, items: Item[]): Body => ({ ...body, input: items });
const firstText = (item: Item) => (item.content as { text: string }[])[0]!.text;
const withText = (item: Item, text: string): Item => ({
  ...item,
  content: [{ ...(item.content as Item[])[0], text }],
});

describe("diffRequestBodies (OpenAI Responses)", () => {
  it("an appended turn shares the whole earlier prompt", () => {
    const diff = diffRequestBodies({ previous: responses(1), current: responses(2) });
    expect(diff.format).toBe("openai-responses");
    expect(diff.cause.kind).toBe("append-only");
    expect(diff.divergence).toBeUndefined();
    expect(diff.sharedSegments).toBe(diff.previous.segments);
    expect(diff.sharedTokens).toBe(diff.previous.tokens);
    expect(diff.sharedHistoryItems).toBe(diff.previous.historyItems);
    expect(diff.current.tokens).toBeGreaterThan(diff.previous.tokens);
  });

  it("finds an edited earlier message and the timestamp in it", () => {
    const current = responses(3);
    const items = input(current);
    items[1] = withText(items[1]!, firstText(items[1]!).replace("10:01", "10:03"));
    const diff = diffRequestBodies({ previous: responses(2), current: withInput(current, items) });
    expect(diff.cause.kind).toBe("edited");
    expect(diff.divergence).toMatchObject({
      segment: 3,
      label: "input item 1",
      path: "input[1].content[0].text",
      reason: "value",
    });
    expect(diff.sharedHistoryItems).toBe(1);
    expect(diff.cause.volatile).toEqual({
      kind: "timestamp",
      before: "2026-11-29 10:01",
      after: "2026-11-29 10:03",
    });
    expect(diff.cause.summary).toMatch(
      /an earlier message was edited.*volatile value \(timestamp\)/,
    );
    expect(diff.diff).toContain(
      "  -<current_time>Sunday, 2026-11-29 10:01 UTC+01:00</current_time>",
    );
    expect(diff.diff).toContain(
      "  +<current_time>Sunday, 2026-11-29 10:03 UTC+01:00</current_time>",
    );
  });

  it("names the tools that changed", () => {
    const current = responses(3);
    const tools = (current.tools as Item[]).filter((tool) => tool.name !== "mcp__db__query");
    const diff = diffRequestBodies({ previous: responses(2), current: { ...current, tools } });
    expect(diff.cause).toMatchObject({ kind: "tools" });
    expect(diff.cause.summary).toContain("removed mcp__db__query");
    expect(diff.divergence).toMatchObject({ segment: 0, path: "tools[15]", reason: "missing" });
    expect(diff.sharedTokens).toBe(0);
  });

  it("sees a date in the instructions", () => {
    const dated = (body: Body, date: string) => ({
      ...body,
      instructions: `${String(body.instructions)}\n\nToday's date: ${date}.`,
    });
    const diff = diffRequestBodies({
      previous: dated(responses(2), "2026-11-29"),
      current: dated(responses(3), "2026-11-30"),
    });
    expect(diff.cause.kind).toBe("instructions");
    expect(diff.divergence?.path).toBe("instructions");
    expect(diff.cause.volatile).toEqual({
      kind: "date",
      before: "2026-11-29",
      after: "2026-11-30",
    });
    expect(diff.diff).toContain("  -Today's date: 2026-11-29.");
  });

  it("tells removed, inserted and reordered history items apart", () => {
    const previous = responses(2);
    const items = input(responses(3));
    const removed = diffRequestBodies({
      previous,
      current: withInput(previous, [items[0]!, ...items.slice(2)]),
    });
    expect(removed.cause.kind).toBe("removed");
    expect(removed.cause.summary).toContain("1 earlier item(s) were removed, from input item 1");

    const note = { type: "message", role: "user", content: [{ type: "input_text", text: "note" }] };
    const inserted = diffRequestBodies({
      previous,
      current: withInput(previous, [items[0]!, note, ...items.slice(1)]),
    });
    expect(inserted.cause.kind).toBe("inserted");

    const reordered = diffRequestBodies({
      previous,
      current: withInput(previous, [items[0]!, items[1]!, items[3]!, items[2]!, ...items.slice(4)]),
    });
    expect(reordered.cause.kind).toBe("reordered");
    expect(reordered.divergence?.path).toBe("input[2].type");
  });

  it("reports keys written in another order", () => {
    const current = responses(3);
    const items = input(current);
    const { type, role, content } = items[1]!;
    items[1] = { role, type, content };
    const diff = diffRequestBodies({ previous: responses(2), current: withInput(current, items) });
    expect(diff.cause.kind).toBe("key-order");
    expect(diff.divergence).toMatchObject({ path: "input[1].type", reason: "key-order" });
  });

  it("puts a changed cache namespace first", () => {
    const current = { ...responses(3), prompt_cache_key: "another-conversation" };
    const diff = diffRequestBodies({ previous: responses(2), current });
    expect(diff.cause.kind).toBe("namespace");
    expect(diff.namespaceChanges).toEqual([
      {
        field: "prompt_cache_key",
        previous: "conv_a85809073cd942aba2feb8e2452efa3e7178fb6f",
        current: "another-conversation",
      },
    ]);
    expect(diff.divergence).toBeUndefined();
  });

  it("sees a later body that ends inside the earlier one", () => {
    const diff = diffRequestBodies({ previous: responses(3), current: responses(2) });
    expect(diff.cause.kind).toBe("truncated");
    expect(diff.divergence).toMatchObject({ label: "(end)", reason: "ended" });
  });

  it("calls equal bodies identical", () => {
    expect(diffRequestBodies({ previous: responses(2), current: responses(2) }).cause.kind).toBe(
      "identical",
    );
  });
});

describe("diffRequestBodies (Chat Completions and Anthropic)", () => {
  it("compares Chat messages and sees an edited system message", () => {
    const previous = loadFixture("openai-chat-call-1");
    const current = loadFixture("openai-chat-call-2");
    expect(diffRequestBodies({ previous, current })).toMatchObject({
      format: "openai-chat",
      cause: { kind: "append-only" },
    });
    const messages = structuredClone(current.messages) as Item[];
    messages[0] = { ...messages[0], content: `${String(messages[0]!.content)} Now: 10:42.` };
    const diff = diffRequestBodies({ previous, current: { ...current, messages } });
    expect(diff.cause.kind).toBe("instructions");
    expect(diff.divergence?.path).toBe("messages[0].content");
    expect(diff.cause.volatile).toMatchObject({ kind: "time", after: "10:42" });
  });

  it("ignores where Anthropic cache markers sit and finds an edited block", () => {
    const previous = loadFixture("anthropic-call-1");
    const current = loadFixture("anthropic-call-2");
    const append = diffRequestBodies({ previous, current });
    expect(append.format).toBe("anthropic");
    expect(append.cause.kind).toBe("append-only");
    expect(append.sharedSegments).toBe(append.previous.segments);

    const messages = structuredClone(current.messages) as { content: Item[] }[];
    const block = messages[0]!.content[1]!;
    messages[0]!.content[1] = { ...block, text: `${String(block.text)}!` };
    const edited = diffRequestBodies({ previous, current: { ...current, messages } });
    expect(edited.cause.kind).toBe("edited");
    expect(edited.divergence?.path).toBe("messages[0].content[1].text");
  });

  it("sees a changed Anthropic tool choice as another cache namespace", () => {
    const previous = loadFixture("anthropic-call-1");
    const current = { ...loadFixture("anthropic-call-2"), tool_choice: { type: "any" } };
    const diff = diffRequestBodies({ previous, current });
    expect(diff.cause.kind).toBe("namespace");
    expect(diff.cause.summary).toContain('tool_choice (absent) → {"type":"any"}');
  });
});
