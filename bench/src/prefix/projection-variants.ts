import { allowedToolsForMode } from "@cursor/request";
import { toModelRequest } from "@cursor/run";
import type { CanonicalMessage, ModelRequest, RequestContextMessage } from "@cursor/run";
import type { RunRequestBody, SessionRequestContext } from "@cursor/testkit";
import { benchCacheScope } from "../harness/gateway-harness.js";
import { promptSpecFor } from "../harness/prompt-spec-for.js";

/**
 * How a gateway could project the same canonical history for the provider:
 * - `ours`: the project's projection (request context appended as a message when it changes);
 * - `naive-date`: rebuilds the system prompt every call from the instructions, the latest
 *   request context and today's date, and keeps no context messages in the history;
 * - `naive-time`: the same with the request's date and time (what a "current time" line does);
 * - `no-dedup`: keeps context messages in the history but re-sends the context before every
 *   user turn, changed or not.
 */
export type ProjectionVariant = "ours" | "naive-date" | "naive-time" | "no-dedup";

export const projectionVariants: readonly ProjectionVariant[] = [
  "ours",
  "naive-date",
  "naive-time",
  "no-dedup",
];

export const variantLabels: Readonly<Record<ProjectionVariant, string>> = {
  ours: "this gateway (append-only)",
  "naive-date": "naive: context + date in system prompt",
  "naive-time": "naive: context + time in system prompt",
  "no-dedup": "no dedup: context re-sent every turn",
};

/**
 * The ModelRequest the gateway built for a model call, rebuilt from the canonical messages the
 * call saw and the gateway request behind it (the prompt spec from the MCP servers of the latest
 * request context, the allowed tools from the request's mode).
 */
export function rebuildModelRequest({
  messages,
  request,
  promptContext,
  model,
}: {
  messages: readonly CanonicalMessage[];
  request: RunRequestBody;
  promptContext: SessionRequestContext | undefined;
  model: string;
}): ModelRequest {
  const promptSpec = promptSpecFor(promptContext);
  return toModelRequest({
    conversationId: request.conversationId,
    model,
    promptSpec,
    messages,
    allowedTools: allowedToolsForMode(request.mode, promptSpec),
    cacheScope: benchCacheScope,
  });
}

function latestContextBefore(
  messages: readonly CanonicalMessage[],
  end: number,
): RequestContextMessage | undefined {
  for (let i = end - 1; i >= 0; i -= 1) {
    const message = messages[i]!;
    if (message.kind === "request-context") return message;
  }
  return undefined;
}

/** `2026-11-29T10:00:00+01:00` → the date, or date and time to the minute, as the client sent it. */
function clockLine(timestamp: string, precision: "date" | "time"): string {
  return precision === "date"
    ? `Today's date: ${timestamp.slice(0, 10)}.`
    : `Current time: ${timestamp.slice(0, 16).replace("T", " ")} (${timestamp.slice(19) || "Z"}).`;
}

/** The same canonical history, projected the way `variant` would. */
export function projectVariant({
  variant,
  messages,
  request,
  promptContext,
  model,
}: {
  variant: ProjectionVariant;
  messages: readonly CanonicalMessage[];
  request: RunRequestBody;
  promptContext: SessionRequestContext | undefined;
  model: string;
}): ModelRequest {
  switch (variant) {
    case "ours":
      return rebuildModelRequest({ messages, request, promptContext, model });
    case "naive-date":
    case "naive-time": {
      const context = latestContextBefore(messages, messages.length);
      const base = rebuildModelRequest({
        messages: messages.filter((message) => message.kind !== "request-context"),
        request,
        promptContext,
        model,
      });
      const parts = [
        base.instructions,
        ...(context === undefined ? [] : [context.text]),
        clockLine(request.timestamp, variant === "naive-date" ? "date" : "time"),
      ];
      return { ...base, instructions: parts.join("\n\n") };
    }
    case "no-dedup": {
      const resent: CanonicalMessage[] = [];
      messages.forEach((message, index) => {
        const startsUserTurn = message.kind === "runtime" && message.runtimeKind === "user-turn";
        const previous = messages[index - 1];
        if (startsUserTurn && previous?.kind !== "request-context") {
          const context = latestContextBefore(messages, index);
          if (context !== undefined) resent.push(context);
        }
        resent.push(message);
      });
      return rebuildModelRequest({ messages: resent, request, promptContext, model });
    }
    default: {
      const exhaustive: never = variant;
      throw new Error(`unknown projection variant ${String(exhaustive)}`);
    }
  }
}
