// Test helper: the provider-visible prefix of a body as a flat list of serialised units —
// each tool, each system block, each message content block tagged with its role — with
// `cache_control` removed, the way a prefix cache hashes them.
import type { AnthropicBody } from "../anthropic-api.js";

function withoutMarker(value: object): string {
  const { cache_control: _marker, ...rest } = value as { cache_control?: unknown };
  return JSON.stringify(rest);
}

export function flattenPrefix(body: AnthropicBody): string[] {
  return [
    ...(body.tools ?? []).map((tool) => `tool ${withoutMarker(tool)}`),
    ...body.system.map((block) => `system ${withoutMarker(block)}`),
    ...body.messages.flatMap((message) =>
      message.content.map((block) => `${message.role} ${withoutMarker(block)}`),
    ),
  ];
}

export function countMarkers(body: AnthropicBody): number {
  return (JSON.stringify(body).match(/"cache_control":/g) ?? []).length;
}
