import type { RunRequestBody, SessionRequestContext } from "@cursor/testkit";

// The load part's client: what one conversation sends per turn. Each turn is one tool round: the
// user names a file, the fake provider's scripted agent (`--agent`, its answer depends on the
// body alone, so 32 streams at once need no shared reply queue) asks for `read_file`, the client
// posts the file, the agent answers from it.

/** The same request context on every turn: the gateway adds it once and never again. */
const loadRequestContext: SessionRequestContext = {
  rules: [
    {
      name: "style",
      path: ".cursor/rules/style.mdc",
      content: "Prefer small functions, kebab-case files and tests beside the code.",
    },
  ],
  skills: [],
  subagents: [],
  env: {
    os: "linux 6.1",
    shell: "bash",
    workspacePaths: ["/home/dev/load"],
    timeZone: "Europe/Berlin",
  },
  git: [{ path: "/home/dev/load", branch: "main", status: " M src/load/index.ts" }],
  mcp: { servers: [] },
};

/** `load-007`: ids sort in creation order. */
export function loadConversationId(index: number): string {
  return `load-${String(index).padStart(3, "0")}`;
}

/** The file the user asks about in `turn`: it names the conversation, so every body does. */
export function loadFilePath({
  conversationId,
  turn,
}: {
  conversationId: string;
  turn: number;
}): string {
  return `src/load/${conversationId}/turn-${turn}.ts`;
}

/** The client's run id of `turn` (the tool-results request continues the same run). */
export function loadRunId({ conversationId, turn }: { conversationId: string; turn: number }) {
  return `${conversationId}-run-${turn}`;
}

function timestamp(turn: number): string {
  const minutes = turn % 60;
  const hours = 10 + Math.floor(turn / 60);
  return `2026-11-29T${String(hours).padStart(2, "0")}:${String(minutes).padStart(2, "0")}:00+01:00`;
}

/** The turn's user message (its first provider call asks for `read_file`). */
export function userMessageBody({
  conversationId,
  turn,
}: {
  conversationId: string;
  turn: number;
}): RunRequestBody & { readonly checkpointForm: "delta" } {
  return {
    conversationId,
    runId: loadRunId({ conversationId, turn }),
    mode: "agent",
    timestamp: timestamp(turn),
    // A client of the delta form: each checkpoint event carries what the run added.
    checkpointForm: "delta",
    action: {
      type: "user-message",
      message: {
        id: `${conversationId}-message-${turn}`,
        text: `Read ${loadFilePath({ conversationId, turn })} and tell me what it exports.`,
      },
    },
    requestContext: loadRequestContext,
  };
}

/** The tool round's result: the file the model asked for (its second call answers from it). */
export function toolResultsBody({
  conversationId,
  turn,
  callId,
  chars,
}: {
  conversationId: string;
  turn: number;
  callId: string;
  chars: number;
}): RunRequestBody & { readonly checkpointForm: "delta" } {
  return {
    conversationId,
    runId: loadRunId({ conversationId, turn }),
    mode: "agent",
    timestamp: timestamp(turn),
    checkpointForm: "delta",
    action: {
      type: "tool-results",
      results: [
        { callId, output: fileContent({ path: loadFilePath({ conversationId, turn }), chars }) },
      ],
    },
  };
}

/**
 * A TypeScript file of about `chars` characters (at least one export), the same for the same
 * path: what `read_file` returns in a typical agent turn.
 */
export function fileContent({ path, chars }: { path: string; chars: number }): string {
  const lines = [`// ${path}`];
  let length = lines[0]!.length;
  for (let index = 0; length < chars || index === 0; index += 1) {
    const line =
      index % 4 === 3
        ? `export function step${index}(input: number): number {\n  return input * ${index + 2};\n}`
        : `export const value${index} = ${JSON.stringify(`${path}#${index}`)};`;
    lines.push(line);
    length += line.length + 1;
  }
  return `${lines.join("\n")}\n`;
}

const bodyPathPattern = /src\/load\/(load-\d+)\/turn-(\d+)\.ts/g;

/**
 * Which conversation and turn a provider body belongs to: the last file path it mentions (the
 * current turn's: its user message, then its tool call and result). The fake provider's record
 * is read this way, so the bodies it received are matched to the gateway's calls without
 * asking the gateway.
 */
export function locateBody(bodyJson: string): { conversationId: string; turn: number } | undefined {
  let last: RegExpExecArray | undefined;
  for (const match of bodyJson.matchAll(bodyPathPattern)) last = match;
  if (last === undefined) return undefined;
  return { conversationId: last[1]!, turn: Number(last[2]) };
}
