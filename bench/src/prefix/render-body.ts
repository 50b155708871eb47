import {
  renderAnthropicSegments,
  renderOpenAIChatSegments,
  renderOpenAIResponsesSegments,
} from "@cursor/testkit";
import type { PrefixSegment } from "@cursor/testkit";
import type { BenchProvider } from "../harness/gateway-harness.js";

export interface RenderedBody {
  readonly mode: "openai" | "anthropic";
  /** The cache namespace the provider would use (as the testkit's fake provider derives it). */
  readonly namespace: string;
  readonly segments: readonly PrefixSegment[];
}

/**
 * Renders a wire body into prefix segments exactly as the fake provider does for its API, so a
 * re-serialised body is priced by the same rules as the ones the gateway really sent.
 */
export function renderBody(provider: BenchProvider, body: Record<string, unknown>): RenderedBody {
  switch (provider) {
    case "openai-responses":
    case "openai-chat": {
      const key = typeof body.prompt_cache_key === "string" ? body.prompt_cache_key : "";
      return {
        mode: "openai",
        namespace: `model=${String(body.model)} prompt_cache_key=${key}`,
        segments:
          provider === "openai-responses"
            ? renderOpenAIResponsesSegments(body)
            : renderOpenAIChatSegments(body),
      };
    }
    case "anthropic":
      return {
        mode: "anthropic",
        namespace: `model=${String(body.model)} tool_choice=${JSON.stringify(body.tool_choice ?? null)} thinking=${JSON.stringify(body.thinking ?? null)}`,
        segments: renderAnthropicSegments(body).segments,
      };
    default: {
      const exhaustive: never = provider;
      throw new Error(`unknown provider ${String(exhaustive)}`);
    }
  }
}
