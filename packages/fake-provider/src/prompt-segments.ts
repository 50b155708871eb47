import type { PrefixSegment } from "./prefix-cache-simulator.js";
import { countTokens } from "./token-count.js";

/** A rendered segment together with where it sits in the received body. */
export interface PromptSegment extends PrefixSegment {
  /** Path in the received body, e.g. `input[41]` or `messages[3].content[1]`. */
  readonly path: string;
}

type JsonRecord = Record<string, unknown>;

const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === "object" && value !== null && !Array.isArray(value);

// Bytes are rendered with JSON.stringify of the parsed body, which keeps the received key order:
// a serializer that reorders keys between turns must lose its cache here, as it would for real.
function segment(input: {
  label: string;
  path: string;
  bytes: string;
  blockType?: string | undefined;
  marker?: PrefixSegment["marker"];
}): PromptSegment {
  return {
    label: input.label,
    path: input.path,
    bytes: input.bytes,
    tokens: countTokens(input.bytes),
    ...(input.blockType === undefined ? {} : { blockType: input.blockType }),
    ...(input.marker === undefined ? {} : { marker: input.marker }),
  };
}

/** OpenAI Responses: tools, structured-output schema, instructions, then each input item. */
export function renderOpenAIResponsesSegments(body: JsonRecord): PromptSegment[] {
  const segments: PromptSegment[] = [];
  if (body.tools !== undefined) {
    segments.push(segment({ label: "tools", path: "tools", bytes: JSON.stringify(body.tools) }));
  }
  const format = isRecord(body.text) ? body.text.format : undefined;
  if (isRecord(format) && format.type === "json_schema") {
    segments.push(segment({ label: "schema", path: "text.format", bytes: JSON.stringify(format) }));
  }
  if (typeof body.instructions === "string") {
    segments.push(
      segment({
        label: "instructions",
        path: "instructions",
        bytes: JSON.stringify(body.instructions),
      }),
    );
  }
  const input = body.input;
  const items = Array.isArray(input) ? input : input === undefined ? [] : [input];
  items.forEach((item, index) => {
    segments.push(
      segment({
        label: `input item ${index}`,
        path: Array.isArray(input) ? `input[${index}]` : "input",
        bytes: JSON.stringify(item),
      }),
    );
  });
  return segments;
}

/** OpenAI Chat Completions: tools, response_format schema, then each message. */
export function renderOpenAIChatSegments(body: JsonRecord): PromptSegment[] {
  const segments: PromptSegment[] = [];
  if (body.tools !== undefined) {
    segments.push(segment({ label: "tools", path: "tools", bytes: JSON.stringify(body.tools) }));
  }
  const format = body.response_format;
  if (isRecord(format) && format.type === "json_schema") {
    segments.push(
      segment({ label: "schema", path: "response_format", bytes: JSON.stringify(format) }),
    );
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  messages.forEach((message, index) => {
    const role = isRecord(message) ? message.role : undefined;
    const isSystem = role === "system" || role === "developer";
    segments.push(
      segment({
        label: isSystem ? `system (message ${index})` : `message ${index}`,
        path: `messages[${index}]`,
        bytes: JSON.stringify(message),
      }),
    );
  });
  return segments;
}

const ttlMsByName: Record<string, number> = { "5m": 5 * 60 * 1000, "1h": 60 * 60 * 1000 };

/** A cache_control value as a marker (`ttl` "5m" / "1h"); undefined when there is none. */
function markerOf(value: unknown): PrefixSegment["marker"] {
  if (!isRecord(value)) return undefined;
  const ttl = typeof value.ttl === "string" ? ttlMsByName[value.ttl] : undefined;
  return ttl === undefined ? {} : { ttlMs: ttl };
}

/** The block without `cache_control` (here and in nested tool_result content), key order kept. */
export function withoutCacheControl(block: unknown): unknown {
  if (!isRecord(block)) return block;
  const copy: JsonRecord = {};
  for (const [key, value] of Object.entries(block)) {
    if (key === "cache_control") continue;
    copy[key] =
      key === "content" && block.type === "tool_result" && Array.isArray(value)
        ? value.map(withoutCacheControl)
        : value;
  }
  return copy;
}

/** Number of `cache_control` markers an Anthropic block carries (nested tool_result content too). */
function markersIn(block: unknown): number {
  if (!isRecord(block)) return 0;
  let count = block.cache_control === undefined ? 0 : 1;
  if (block.type === "tool_result" && Array.isArray(block.content)) {
    for (const inner of block.content) count += markersIn(inner);
  }
  return count;
}

function nestedMarker(block: unknown): PrefixSegment["marker"] {
  if (!isRecord(block)) return undefined;
  const own = markerOf(block.cache_control);
  if (own !== undefined) return own;
  if (block.type === "tool_result" && Array.isArray(block.content)) {
    for (const inner of block.content) {
      const marker = isRecord(inner) ? markerOf(inner.cache_control) : undefined;
      if (marker !== undefined) return marker;
    }
  }
  return undefined;
}

export interface AnthropicSegments {
  readonly segments: PromptSegment[];
  /** Every `cache_control` marker in the body (the 4-marker limit counts all of them). */
  readonly markerCount: number;
}

/**
 * Anthropic Messages: each tool, each system block, each message content block (rendered as
 * `role:` + the block without `cache_control`). A top-level `cache_control` (automatic caching)
 * marks the last block.
 */
export function renderAnthropicSegments(body: JsonRecord): AnthropicSegments {
  const segments: PromptSegment[] = [];
  let markerCount = 0;
  const tools = Array.isArray(body.tools) ? body.tools : [];
  tools.forEach((tool, index) => {
    markerCount += markersIn(tool);
    segments.push(
      segment({
        label: `tool ${index}`,
        path: `tools[${index}]`,
        bytes: JSON.stringify(withoutCacheControl(tool)),
        blockType: "tool",
        marker: isRecord(tool) ? markerOf(tool.cache_control) : undefined,
      }),
    );
  });
  if (typeof body.system === "string") {
    segments.push(
      segment({
        label: "system",
        path: "system",
        bytes: JSON.stringify(body.system),
        blockType: "system",
      }),
    );
  } else if (Array.isArray(body.system)) {
    body.system.forEach((block, index) => {
      markerCount += markersIn(block);
      segments.push(
        segment({
          label: `system block ${index}`,
          path: `system[${index}]`,
          bytes: JSON.stringify(withoutCacheControl(block)),
          blockType: "system",
          marker: nestedMarker(block),
        }),
      );
    });
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  messages.forEach((message, index) => {
    if (!isRecord(message)) return;
    const role = String(message.role);
    if (typeof message.content === "string") {
      segments.push(
        segment({
          label: `message ${index}`,
          path: `messages[${index}].content`,
          bytes: `${role}:${JSON.stringify({ type: "text", text: message.content })}`,
          blockType: "text",
        }),
      );
      return;
    }
    const blocks = Array.isArray(message.content) ? message.content : [];
    blocks.forEach((block, blockIndex) => {
      markerCount += markersIn(block);
      segments.push(
        segment({
          label: `message ${index} block ${blockIndex}`,
          path: `messages[${index}].content[${blockIndex}]`,
          bytes: `${role}:${JSON.stringify(withoutCacheControl(block))}`,
          blockType: isRecord(block) && typeof block.type === "string" ? block.type : undefined,
          marker: nestedMarker(block),
        }),
      );
    });
  });
  const automatic = markerOf(body.cache_control);
  if (automatic !== undefined) {
    markerCount += 1;
    const last = segments.pop();
    if (last !== undefined) segments.push({ ...last, marker: last.marker ?? automatic });
  }
  return { segments, markerCount };
}
