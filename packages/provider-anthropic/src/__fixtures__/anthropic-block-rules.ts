// The Messages API's documented rules for a request body, as a checker for property tests:
// everything a body must satisfy for the API not to answer 400, apart from what only the
// server can check (signatures, token counts).
import type {
  AnthropicBody,
  AnthropicCacheControl,
  AnthropicContentBlock,
} from "../anthropic-api.js";

const toolIdPattern = /^[a-zA-Z0-9_-]+$/;

const isThinking = (block: AnthropicContentBlock | undefined): boolean =>
  block?.type === "thinking" || block?.type === "redacted_thinking";

const isBlank = (text: string): boolean => text.trim() === "";

function markersOf(block: AnthropicContentBlock): AnthropicCacheControl[] {
  const own = "cache_control" in block && block.cache_control ? [block.cache_control] : [];
  if (block.type !== "tool_result") return own;
  return [
    ...own,
    ...(block.content ?? []).flatMap((inner) => (inner.cache_control ? [inner.cache_control] : [])),
  ];
}

/** Every rule the body breaks, as `path: rule` lines (empty when the body is valid). */
export function anthropicBlockRuleViolations(body: AnthropicBody): string[] {
  const violations: string[] = [];
  const { messages } = body;
  if (messages.length === 0) return violations;
  if (messages[0]!.role !== "user")
    violations.push("messages[0]: the first message is a user message");
  if (messages.at(-1)!.role !== "user") {
    violations.push(`messages[${messages.length - 1}]: the body ends with a user message`);
  }
  const toolUseIds = new Set<string>();
  messages.forEach((message, index) => {
    const path = `messages[${index}]`;
    const content: readonly AnthropicContentBlock[] = message.content;
    if (index > 0 && messages[index - 1]!.role === message.role) {
      violations.push(`${path}: roles alternate`);
    }
    if (content.length === 0) violations.push(`${path}: content is not empty`);
    content.forEach((block, blockIndex) => {
      const blockPath = `${path}.content[${blockIndex}]`;
      if (block.type === "text" && isBlank(block.text)) {
        violations.push(`${blockPath}: text blocks hold non-whitespace text`);
      }
      if (block.type === "tool_result") {
        for (const inner of block.content ?? []) {
          if (inner.type === "text" && isBlank(inner.text)) {
            violations.push(`${blockPath}: tool_result text holds non-whitespace text`);
          }
        }
      }
      if (isThinking(block)) {
        if (message.role !== "assistant")
          violations.push(`${blockPath}: thinking only in assistant messages`);
        if ("cache_control" in block) violations.push(`${blockPath}: no cache_control on thinking`);
      }
      if (block.type === "tool_use") {
        if (!toolIdPattern.test(block.id)) violations.push(`${blockPath}: tool_use id pattern`);
        if (toolUseIds.has(block.id)) violations.push(`${blockPath}: tool_use ids are unique`);
        toolUseIds.add(block.id);
      }
    });
    if (message.role === "assistant" && isThinking(content.at(-1))) {
      violations.push(`${path}: the final block of an assistant message is not thinking`);
    }
    // tool_use blocks answered by tool_result blocks that open the next message, and results
    // only for the calls of the message before.
    if (message.role === "assistant") {
      const uses = content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
      const next = messages[index + 1];
      const nextContent: readonly AnthropicContentBlock[] = next?.content ?? [];
      const leading = nextContent.slice(0, uses.length);
      const answered = leading.flatMap((block) =>
        block.type === "tool_result" ? [block.tool_use_id] : [],
      );
      if (uses.length > 0 && [...uses].sort().join() !== [...answered].sort().join()) {
        violations.push(`${path}: every tool_use is answered first thing in the next message`);
      }
    }
    if (message.role === "user") {
      const previous = messages[index - 1];
      const uses = new Set(
        previous?.role === "assistant"
          ? previous.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []))
          : [],
      );
      let resultsDone = false;
      content.forEach((block, blockIndex) => {
        if (block.type !== "tool_result") {
          resultsDone = true;
          return;
        }
        if (resultsDone) violations.push(`${path}.content[${blockIndex}]: tool results come first`);
        if (!uses.has(block.tool_use_id)) {
          violations.push(`${path}.content[${blockIndex}]: tool_result answers the message before`);
        }
      });
    }
  });
  if (body.thinking !== undefined) {
    if (body.thinking.budget_tokens >= body.max_tokens) {
      violations.push("thinking: budget_tokens < max_tokens");
    }
    const last = messages.findLastIndex((message) => message.role === "assistant");
    const content: readonly AnthropicContentBlock[] = last < 0 ? [] : messages[last]!.content;
    if (content.some((block) => block.type === "tool_use") && !isThinking(content[0])) {
      violations.push(
        `messages[${last}]: with thinking on, the open round's assistant message starts with thinking`,
      );
    }
  }
  // At most 4 markers, and every 1-hour marker before every 5-minute one (tools → system →
  // messages).
  const markers = [
    ...(body.tools ?? []).flatMap((tool) => (tool.cache_control ? [tool.cache_control] : [])),
    ...body.system.flatMap((block) => (block.cache_control ? [block.cache_control] : [])),
    ...messages.flatMap((message) =>
      (message.content as readonly AnthropicContentBlock[]).flatMap(markersOf),
    ),
  ];
  if (markers.length > 4)
    violations.push(`cache_control: at most 4 markers (found ${markers.length})`);
  const firstShort = markers.findIndex((marker) => marker.ttl !== "1h");
  if (firstShort >= 0 && markers.slice(firstShort).some((marker) => marker.ttl === "1h")) {
    violations.push("cache_control: 1h markers come before 5m markers");
  }
  return violations;
}
