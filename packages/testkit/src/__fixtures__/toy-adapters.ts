import type { ModelMessage, ModelRequest, ProviderAdapter, ProviderEvent } from "@cursor/run";

// Small adapters for testing the conformance laws: one that keeps every law and some that each
// break one. They serialise to a Responses-like body `{model, instructions, tools, input}`.

export interface ToyBody {
  model: string;
  instructions: string;
  tools: { type: "function"; name: string; parameters: unknown }[];
  tool_choice?: unknown;
  input: Record<string, unknown>[];
}

function item(message: ModelMessage, providerId: string): Record<string, unknown>[] {
  switch (message.role) {
    case "user":
      return [
        {
          role: "user",
          content: message.content.map((part) =>
            part.type === "text"
              ? { type: "input_text", text: part.text }
              : { type: "input_image", image_url: `data:${part.mimeType};base64,${part.data}` },
          ),
        },
      ];
    case "assistant": {
      const own = message.replay[providerId];
      return [
        ...(own === undefined ? [] : [{ type: "reasoning", state: own }]),
        ...(message.text === "" ? [] : [{ role: "assistant", content: message.text }]),
        ...message.toolCalls.map((call) => ({
          type: "function_call",
          call_id: call.callId,
          name: call.name,
          arguments: call.arguments,
        })),
      ];
    }
    case "tool":
      return [{ type: "function_call_output", call_id: message.callId, output: message.content }];
    default: {
      const exhaustive: never = message;
      throw new Error(`unknown message ${JSON.stringify(exhaustive)}`);
    }
  }
}

async function* noStream(): AsyncIterable<ProviderEvent> {
  yield { type: "finish", reason: "stop" };
}

export function toyAdapter(id = "toy"): ProviderAdapter<ToyBody> {
  return {
    id,
    serialize(request: ModelRequest) {
      return {
        body: {
          model: request.model,
          instructions: request.instructions,
          tools: request.tools.map((tool) => ({
            type: "function" as const,
            name: tool.name,
            parameters: tool.inputSchema,
          })),
          ...(request.allowedTools === undefined
            ? {}
            : { tool_choice: { type: "allowed_tools", tools: [...request.allowedTools] } }),
          input: request.messages.flatMap((message) => item(message, id)),
        },
        warnings: [],
      };
    },
    stream: noStream,
  };
}

/** Edits earlier history: the newest request context is folded into the first input item. */
export function rewritingAdapter(): ProviderAdapter<ToyBody> {
  const base = toyAdapter();
  return {
    ...base,
    serialize(request) {
      const { body, warnings } = base.serialize(request);
      const contexts = request.messages.filter(
        (m) => m.role === "user" && m.source === "request-context",
      );
      const first = body.input[0];
      if (contexts.length > 1 && first !== undefined) {
        body.input[0] = {
          ...first,
          content: [{ type: "input_text", text: `latest of ${contexts.length}` }],
        };
      }
      return { body, warnings };
    },
  };
}

/** Puts the mode's allowed tools into the tool list, so a mode switch rewrites the tools. */
export function toolFilteringAdapter(): ProviderAdapter<ToyBody> {
  const base = toyAdapter();
  return {
    ...base,
    serialize(request) {
      const { body, warnings } = base.serialize(request);
      const allowed = request.allowedTools;
      return {
        body: {
          ...body,
          tools:
            allowed === undefined ? body.tools : body.tools.filter((t) => allowed.includes(t.name)),
        },
        warnings,
      };
    },
  };
}

/** Sorts the input by content length on the wire: deterministic, but never append-only. */
export function nonDeterministicAdapter(): ProviderAdapter<ToyBody> {
  const base = toyAdapter();
  let calls = 0;
  return {
    ...base,
    serialize(request) {
      const { body, warnings } = base.serialize(request);
      calls += 1;
      return { body: { ...body, model: `${body.model}#${calls}` }, warnings };
    },
  };
}

/** Sorts messages in place (mutating the frozen request throws; an unfrozen one changes). */
export function mutatingAdapter(): ProviderAdapter<ToyBody> {
  const base = toyAdapter();
  return {
    ...base,
    serialize(request) {
      (request.messages as ModelMessage[]).reverse();
      return base.serialize(request);
    },
  };
}

/** Marks every user item with a cache marker. */
export function markerHappyAdapter(): ProviderAdapter<ToyBody> {
  const base = toyAdapter();
  return {
    ...base,
    serialize(request) {
      const { body, warnings } = base.serialize(request);
      return {
        body: {
          ...body,
          input: body.input.map((entry) =>
            entry.role === "user" ? { ...entry, cache_control: { type: "ephemeral" } } : entry,
          ),
        },
        warnings,
      };
    },
  };
}

/** Throws on images in tool results. */
export function imageRejectingAdapter(): ProviderAdapter<ToyBody> {
  const base = toyAdapter();
  return {
    ...base,
    serialize(request) {
      if (request.messages.some((m) => m.role === "tool" && m.image !== undefined)) {
        throw new Error("tool result images are not supported");
      }
      return base.serialize(request);
    },
  };
}
