import type { ModelMessage, ModelRequest } from "@cursor/run";
import { expect } from "vitest";

/** The request's history without the transient continuation message. */
function visibleHistory(request: ModelRequest): readonly ModelMessage[] {
  const last = request.messages.at(-1);
  return last?.role === "user" && last.source === "tail"
    ? request.messages.slice(0, -1)
    : request.messages;
}

/**
 * Invariant 1 and 2 between two requests of one epoch: the earlier history is an exact
 * structural prefix of the later one, and instructions and tools are byte-identical.
 */
export function expectPrefixOf(earlier: ModelRequest, later: ModelRequest): void {
  const before = visibleHistory(earlier);
  expect(later.messages.slice(0, before.length)).toEqual(before);
  expect(later.instructions).toBe(earlier.instructions);
  expect(JSON.stringify(later.tools)).toBe(JSON.stringify(earlier.tools));
  expect(later.promptSpecDigest).toBe(earlier.promptSpecDigest);
}

export function ids(request: ModelRequest): string[] {
  return request.messages.map((message) => message.id);
}

export function contextIds(request: ModelRequest): string[] {
  return request.messages
    .filter((message) => message.role === "user" && message.source === "request-context")
    .map((message) => message.id);
}

export function textOf(message: ModelMessage | undefined): string {
  if (message === undefined) return "";
  if (message.role !== "user") return message.role === "assistant" ? message.text : message.content;
  return message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}
