import { readAgentConversation } from "./agent-conversation.js";
import type { AgentConversation, AgentEvent } from "./agent-conversation.js";
import type { FakeReply } from "./fake-reply.js";
import type { FakeApi } from "./wire-api.js";

/**
 * A small, deterministic scripted agent: the fake provider's answer when no reply is queued in
 * the gateway's `simulated` provider. It reads the request like a model would and
 *
 * - reads a file with `read_file` when the user names one ("Look at src/config.ts"),
 * - searches with `grep` when the user asks where something is ("Where is loadConfig used?"),
 *   and then reads the first file found when the user also wants it summarised or explained,
 * - answers from the tool results once they are in, quoting what they showed,
 * - acknowledges background completions and injected context, writes a summary when asked to
 *   compact, and otherwise answers directly;
 *
 * always with a short reasoning step first. The reply depends on the request body alone (no
 * clock, no randomness, no state), so the same conversation always gets the same answers and a
 * test or a benchmark can rely on them. Call ids are `call_<n>`, n counting the calls already in
 * the body, so they are unique within a conversation's epoch.
 */
export function scriptedAgentReply(request: { api: FakeApi; body: unknown }): FakeReply {
  const conversation = readAgentConversation(request);
  if (/write a summary of the conversation/i.test(conversation.instructions)) {
    return think(
      "I am asked to summarise the conversation so far; I list what the user asked and which tools ran.",
      summaryOf(conversation),
    );
  }
  const { events } = conversation;
  const lastUser = findLastIndex(events, (e) => e.kind === "user");
  const latest = events[lastUser];
  if (latest?.kind !== "user") {
    return think("There is no user message to answer.", "There is nothing to answer yet.");
  }
  const endsWithResults = events.at(-1)?.kind === "tool-result";
  // A background completion or injected context that arrived after the turn's work.
  if (isNotice(latest.text) && !endsWithResults) return answerNotice(latest.text);
  const queryIndex = findLastIndex(events, (e) => e.kind === "user" && hasQuery(e.text));
  const anchor = queryIndex === -1 ? lastUser : queryIndex;
  const query = userQuery(events[anchor]);
  const tools = availableTools(conversation, events[anchor]);
  const nextCallId = `call_${events.filter((e) => e.kind === "tool-call").length + 1}`;
  const turn = events.slice(anchor + 1);
  const calls = turn.filter((e) => e.kind === "tool-call");
  if (calls.length === 0) return firstStep({ query, tools, callId: nextCallId });
  const results = turn.filter((e) => e.kind === "tool-result");
  return nextStep({ query, tools, callId: nextCallId, calls, results });
}

type ToolCall = Extract<AgentEvent, { kind: "tool-call" }>;
type ToolResult = Extract<AgentEvent, { kind: "tool-result" }>;

const think = (reasoning: string, text: string): FakeReply => ({
  type: "reasoning",
  reasoning,
  chunks: 1,
  then: { type: "text", text, chunks: 1 },
});

const callTool = ({
  reasoning,
  name,
  args,
  callId,
}: {
  reasoning: string;
  name: string;
  args: Record<string, string>;
  callId: string;
}): FakeReply => ({
  type: "reasoning",
  reasoning,
  chunks: 1,
  then: { type: "tool-calls", calls: [{ name, arguments: JSON.stringify(args), callId }] },
});

function firstStep({
  query,
  tools,
  callId,
}: {
  query: string;
  tools: ReadonlySet<string>;
  callId: string;
}): FakeReply {
  const path = mentionedPath(query);
  if (path !== undefined && tools.has("read_file")) {
    return callTool({
      reasoning: `The user wants me to look at ${path}, so I read it with read_file before answering.`,
      name: "read_file",
      args: { path },
      callId,
    });
  }
  const keyword = searchKeyword(query);
  if (keyword !== undefined && tools.has("grep")) {
    return callTool({
      reasoning: `The user asks where ${keyword} is, so I search the workspace for it with grep.`,
      name: "grep",
      args: { pattern: keyword },
      callId,
    });
  }
  return think(
    "The request names no file to look at and nothing to search for, so I answer directly.",
    `You asked: "${clip(query, 160)}". I am the gateway's simulated model: I know nothing ` +
      "about your project myself, but I use the workspace tools. Ask me to look at a file " +
      '("Read src/index.ts") or where something is ("Where is loadConfig defined?").',
  );
}

function nextStep({
  query,
  tools,
  callId,
  calls,
  results,
}: {
  query: string;
  tools: ReadonlySet<string>;
  callId: string;
  calls: readonly ToolCall[];
  results: readonly ToolResult[];
}): FakeReply {
  const last = calls.at(-1)!;
  const lastResult = results.find((result) => result.callId === last.callId);
  const alreadyRead = calls.some((call) => call.name === "read_file");
  if (
    last.name === "grep" &&
    lastResult !== undefined &&
    !lastResult.isError &&
    !alreadyRead &&
    wantsContent(query) &&
    tools.has("read_file")
  ) {
    const found = grepMatches(lastResult.output)[0];
    if (found !== undefined) {
      return callTool({
        reasoning: `grep found it in ${found.path}; the user also wants to know what is in it, so I read that file.`,
        name: "read_file",
        args: { path: found.path },
        callId,
      });
    }
  }
  const sentences = calls.map((call) => {
    const result = results.find((candidate) => candidate.callId === call.callId);
    return result === undefined ? `${call.name} gave no result.` : describeResult(call, result);
  });
  return think(
    `I have the results of ${calls.length === 1 ? "the tool call" : `${calls.length} tool calls`}; I answer from what they showed.`,
    sentences.join(" "),
  );
}

function answerNotice(text: string): FakeReply {
  const task = /<task\b([^>]*)>\s*([^\n<]*)/.exec(text);
  if (text.includes("<background_task_completion>") && task !== null) {
    const status = /status="([^"]*)"/.exec(task[1] ?? "")?.[1] ?? "finished";
    const title = clip((task[2] ?? "").trim(), 120);
    return think(
      "A background task I started has finished; I take note of its outcome.",
      `Noted: the background task "${title}" ended with status ${status}.`,
    );
  }
  const injected = /<injected_context>\s*([\s\S]*?)\s*<\/injected_context>/.exec(text);
  if (injected !== null) {
    return think(
      "The editor added context while I was working; I take it into account.",
      `Noted the added context: "${clip(firstLine(injected[1] ?? ""), 120)}".`,
    );
  }
  return think("A notice arrived; I take note of it.", `Noted: "${clip(firstLine(text), 120)}".`);
}

function describeResult(call: ToolCall, result: ToolResult): string {
  const args = parseArguments(call.arguments);
  if (result.isError) return `${call.name} failed: ${clip(firstLine(result.output), 160)}.`;
  switch (call.name) {
    case "read_file": {
      const lines = result.output.split(/\r?\n/).map(withoutLineNumber);
      while (lines.length > 0 && lines.at(-1)!.trim() === "") lines.pop();
      const path = args.path ?? "the file";
      const exported = [
        ...new Set(
          lines.flatMap((line) => {
            const match =
              /^\s*export\s+(?:default\s+)?(?:async\s+)?(?:function\*?|const|let|var|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/.exec(
                line,
              );
            return match === null ? [] : [match[1]!];
          }),
        ),
      ];
      const size = `${path} has ${lines.length} ${lines.length === 1 ? "line" : "lines"}`;
      if (exported.length > 0) return `${size}; it exports ${joinList(exported, 6)}.`;
      const keys = jsonKeys(lines.join("\n"));
      if (keys !== undefined) return `${size} of JSON with the keys ${joinList(keys, 8)}.`;
      const first = lines.find((line) => line.trim() !== "");
      return first === undefined
        ? `${path} is empty.`
        : `${size}; it starts with \`${clip(first.trim(), 100)}\`.`;
    }
    case "grep": {
      const pattern = args.pattern ?? "the pattern";
      const matches = grepMatches(result.output);
      const first = matches[0];
      if (first === undefined) return `grep found no match for \`${pattern}\`.`;
      const where = `${first.path}, line ${first.line}: \`${clip(first.text.trim(), 100)}\``;
      if (matches.length === 1) return `\`${pattern}\` appears in ${where}.`;
      const others = [...new Set(matches.slice(1).map((match) => match.path))].filter(
        (path) => path !== first.path,
      );
      return (
        `\`${pattern}\` appears ${matches.length} times, first in ${where}` +
        (others.length === 0 ? "." : `; also in ${joinList(others, 3)}.`)
      );
    }
    default:
      return `${call.name} answered: ${clip(firstLine(result.output), 160)}.`;
  }
}

function summaryOf(conversation: AgentConversation): string {
  const queries = conversation.events.flatMap((event) =>
    event.kind === "user" && hasQuery(event.text) ? [clip(userQuery(event), 100)] : [],
  );
  const calls = conversation.events.flatMap((event) => {
    if (event.kind !== "tool-call") return [];
    const args = parseArguments(event.arguments);
    return [`${event.name} ${args.path ?? args.pattern ?? ""}`.trim()];
  });
  return [
    `1. Goal: ${queries.length === 0 ? "none stated" : queries.slice(-5).join("; ")}`,
    `3. Work done: ${calls.length === 0 ? "no tool calls" : calls.slice(-8).join(", ")}`,
    "5. Next steps: continue from the latest request.",
  ].join("\n");
}

/** The tools of the body the runtime message allows in this mode (all of them if it says none). */
function availableTools(
  conversation: AgentConversation,
  runtime: AgentEvent | undefined,
): Set<string> {
  const text = runtime?.kind === "user" ? runtime.text : "";
  const allowed = /Tools available in this mode: ([^\n]*)/.exec(text)?.[1];
  const offered = new Set(conversation.tools);
  if (allowed === undefined) return offered;
  const names = new Set(allowed.split(/,\s*|\s+and\s+/).map((name) => name.trim()));
  return new Set([...offered].filter((name) => names.has(name)));
}

const hasQuery = (text: string): boolean => text.includes("<user_query>");
const isNotice = (text: string): boolean =>
  text.includes("<background_task_completion>") || text.includes("<injected_context>");

function userQuery(event: AgentEvent | undefined): string {
  const text = event?.kind === "user" ? event.text : "";
  return /<user_query>\s*([\s\S]*?)\s*<\/user_query>/.exec(text)?.[1] ?? text.trim();
}

const notPaths = new Set(["e.g", "i.e", "etc", "vs"]);

/** The first token that looks like a file path (`src/config.ts`, `README.md`, `./a.json`). */
function mentionedPath(query: string): string | undefined {
  for (const raw of query.split(/\s+/)) {
    const token = raw
      .replace(/^[`'"([{<]+/, "")
      .replace(/[`'")\]}>,;:?!]+$/, "")
      .replace(/\.+$/, "");
    if (notPaths.has(token.toLowerCase())) continue;
    if (
      /^(?:\.{1,2}\/|\/|~\/)?(?:[\w@.-]+\/)*[\w@-][\w@.-]*\.[A-Za-z][A-Za-z0-9]{0,7}$/.test(token)
    ) {
      return token;
    }
  }
  return undefined;
}

const searchWords =
  /\b(where|find|search|grep|locate|which files?|look for|usages? of|occurrences? of|defined|declared)\b/i;

const stopWords = new Set(
  (
    "where is are was were the a an of in on at to for from with and or then it its this that these those " +
    "what which who how why when find search grep locate look show me please can could you i we do does did " +
    "be been being defined declared loaded used called set configured located handled implemented created " +
    "file files code function functions class method summarise summarize explain read open tell about all " +
    "any my our there here up usage usages occurrence occurrences project workspace repo repository"
  ).split(" "),
);

/** What to grep for: a backticked or code-like identifier, else the first meaningful word. */
function searchKeyword(query: string): string | undefined {
  if (!searchWords.test(query)) return undefined;
  const quoted = /`([^`]+)`/.exec(query)?.[1];
  if (quoted !== undefined && quoted.trim() !== "") return quoted.trim();
  const words = query.match(/[A-Za-z_$][\w$]*(?:\(\))?/g) ?? [];
  const codeLike = words.find((word) => /[a-z][A-Z]|_|\(\)$/.test(word));
  if (codeLike !== undefined) return codeLike.replace(/\(\)$/, "");
  return words
    .find((word) => word.length >= 3 && !stopWords.has(word.toLowerCase()))
    ?.toLowerCase();
}

const wantsContent = (query: string): boolean =>
  /\b(summari[sz]e|explain|read|open|show|what does|what is in|content)\b/i.test(query);

function grepMatches(output: string): { path: string; line: number; text: string }[] {
  return output.split(/\r?\n/).flatMap((line) => {
    const match = /^(.+?):(\d+):\s?(.*)$/.exec(line);
    return match === null ? [] : [{ path: match[1]!, line: Number(match[2]), text: match[3]! }];
  });
}

/** The top-level keys of a JSON object text, else undefined. */
function jsonKeys(text: string): string[] | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? Object.keys(parsed)
      : undefined;
  } catch {
    return undefined;
  }
}

function parseArguments(text: string): Record<string, string | undefined> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null) return {};
    return Object.fromEntries(
      Object.entries(parsed).flatMap(([key, value]) =>
        typeof value === "string" ? [[key, value]] : [],
      ),
    );
  } catch {
    return {};
  }
}

/** `   12\tconst a = 1;` / `12: const a` / `12|const a` → the line itself. */
const withoutLineNumber = (line: string): string => line.replace(/^\s*\d+(?:\t|: |\| ?|→)/, "");

const firstLine = (text: string): string => text.trim().split(/\r?\n/)[0] ?? "";

function clip(text: string, max: number): string {
  const points = [...text];
  return points.length <= max ? text : `${points.slice(0, max - 1).join("")}…`;
}

function joinList(items: readonly string[], max: number): string {
  const shown = items.slice(0, max);
  const more = items.length - shown.length;
  const listed =
    shown.length <= 1 ? shown.join("") : `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)!}`;
  return more > 0 ? `${shown.join(", ")} and ${more} more` : listed;
}

function findLastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let index = items.length - 1; index >= 0; index -= 1) if (test(items[index]!)) return index;
  return -1;
}
