import type { ContentPart } from "@cursor/run";
import { z } from "zod";
import type { AgentMode } from "./agent-run-request-schema.js";
import { agentModes, agentModeSchema } from "./agent-run-request-schema.js";
import type { CompiledRuntime } from "./compiled-runtime.js";
import { contentDigest, withoutFinalNewline } from "./compiled-runtime.js";
import { cursorPrompts } from "./cursor-prompts.js";
import { renderAttributes } from "./escape-xml-attribute.js";
import { formatTimestamp } from "./format-timestamp.js";
import { isAcceptedTimeZone, timeZoneSchema } from "./request-context-schema.js";
import type {
  FileReference,
  SelectedContextItem,
  UserMessageInput,
} from "./user-message-schema.js";
import { userMessageInputSchema } from "./user-message-schema.js";
import { SchemaOutputMarks } from "./schema-output-marks.js";
import { parseOrThrow } from "./validation-issues.js";

const userTurnRuntimeInputSchema = z.strictObject({
  mode: agentModeSchema,
  message: userMessageInputSchema,
  timestamp: z.union([
    z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time with an offset" }),
    z.date(),
  ]),
  timeZone: timeZoneSchema.optional(),
});

/** The input without its message: what is left to check when the message is known valid. */
const userTurnClockSchema = userTurnRuntimeInputSchema.omit({ message: true });

// User messages the request schema already produced (`parseAgentRunRequest`).
const validUserMessages = new SchemaOutputMarks<UserMessageInput>();

/** Marks `message`, a fresh output of the request schema, as valid, and deep-freezes it. */
export function rememberValidUserMessage(message: UserMessageInput): void {
  validUserMessages.remember(message);
}

function parseUserTurnInput(
  input: UserTurnRuntimeInput,
): z.output<typeof userTurnRuntimeInputSchema> {
  const { message, ...clock } = input;
  if (!validUserMessages.has(message)) {
    return parseOrThrow({ schema: userTurnRuntimeInputSchema, input, what: "user turn" });
  }
  if (isPlainValidClock(clock)) return { ...clock, message };
  return {
    ...parseOrThrow({ schema: userTurnClockSchema, input: clock, what: "user turn" }),
    message,
  };
}

const clockKeys = new Set(["mode", "timestamp", "timeZone"]);

/**
 * The common clock, checked without the schema: a known mode, a valid `Date`, and no zone or one
 * this package's zone schema accepted before. Anything else (an ISO string, a new zone, an
 * unknown key) goes through the schema, which says what is wrong. Never accepts what the schema
 * would refuse.
 */
function isPlainValidClock(clock: Omit<UserTurnRuntimeInput, "message">): boolean {
  for (const key of Object.keys(clock)) if (!clockKeys.has(key)) return false;
  return (
    (agentModes as readonly string[]).includes(clock.mode) &&
    clock.timestamp instanceof Date &&
    !Number.isNaN(clock.timestamp.getTime()) &&
    (clock.timeZone === undefined || isAcceptedTimeZone(clock.timeZone))
  );
}

export interface UserTurnRuntimeInput {
  readonly mode: AgentMode;
  readonly message: UserMessageInput;
  /** The turn's clock (the request's `timestamp`, or now): a Date or ISO 8601 with offset. */
  readonly timestamp: string | Date;
  /** IANA zone to show the time in (`requestContext.env.timeZone`); UTC when absent. */
  readonly timeZone?: string | undefined;
}

/** Fixed tools the mode may call, in catalog order (MCP tools are never named here). */
function fixedToolsForMode(mode: AgentMode): string {
  let names = fixedToolNames.get(mode);
  if (names === undefined) {
    names = cursorPrompts.tools
      .filter((tool) => tool.modes.includes(mode))
      .map((tool) => tool.name)
      .join(", ");
    fixedToolNames.set(mode, names);
  }
  return names;
}

// The prompt files do not change while the process runs: each mode's list is built once.
const fixedToolNames = new Map<AgentMode, string>();

/** File bodies stay verbatim: the model must see code exactly as it is. */
function contentElement({
  tag,
  attributes,
  content,
}: {
  tag: string;
  attributes: Parameters<typeof renderAttributes>[0];
  content: string;
}): string {
  const open = `${tag}${renderAttributes(attributes)}`;
  return content === "" ? `<${open}/>` : `<${open}>\n${withoutFinalNewline(content)}\n</${tag}>`;
}

function renderSelectedItem(item: SelectedContextItem): string {
  switch (item.kind) {
    case "file":
      return contentElement({
        tag: "file",
        attributes: [["path", item.path]],
        content: item.content,
      });
    case "code":
      return contentElement({
        tag: "code",
        attributes: [
          ["path", item.path],
          ["lines", `${item.startLine}-${item.endLine}`],
        ],
        content: item.content,
      });
    case "terminal":
      return contentElement({
        tag: "terminal",
        attributes: [["title", item.title]],
        content: item.content,
      });
    case "text":
      return contentElement({ tag: "text", attributes: [], content: item.content });
    default: {
      const exhaustive: never = item;
      throw new Error(`unknown selected context kind ${JSON.stringify(exhaustive)}`);
    }
  }
}

function wrap(tag: string, lines: readonly string[]): string {
  return lines.length === 0 ? "" : `<${tag}>\n${lines.join("\n")}\n</${tag}>`;
}

function renderFiles(tag: string, files: readonly FileReference[] | undefined): string {
  return wrap(
    tag,
    (files ?? []).map(
      (file) =>
        `<file${renderAttributes([
          ["path", file.path],
          ["total_lines", file.totalLines],
          ["cursor_line", file.cursorLine],
          ["focused", file.focused],
        ])}/>`,
    ),
  );
}

/** What came with the query besides text: the images that follow the text part. */
function renderActionContext(message: UserMessageInput): string {
  const images = message.images ?? [];
  if (images.length === 0) return "";
  return wrap("attached_images", [
    "The user attached these images to the query; they follow this text, in this order.",
    ...images.map(
      (image, index) =>
        `<image${renderAttributes([
          ["number", index + 1],
          ["mime_type", image.mimeType],
        ])}/>`,
    ),
  ]);
}

/**
 * Renders the runtime message of a user turn from `prompt/cursor/<mode>/runtime.md`: the mode
 * reminder, the time (in the request's time zone), open and recent files, selected context,
 * attachments and the query, exactly once. Only turn-level material: rules, environment, skills
 * and MCP data belong to the request context and never appear here.
 */
export function compileUserTurnRuntime(input: UserTurnRuntimeInput): CompiledRuntime {
  const { mode, message, timestamp, timeZone } = parseUserTurnInput(input);
  const instant = typeof timestamp === "string" ? new Date(timestamp) : timestamp;
  const values = {
    ALLOWED_TOOLS: fixedToolsForMode(mode),
    OPEN_FILES: renderFiles("open_files", message.openFiles),
    RECENT_FILES: renderFiles("recent_files", message.recentFiles),
    SELECTED_CONTEXT: wrap(
      "selected_context",
      (message.selectedContext ?? []).map(renderSelectedItem),
    ),
    ACTION_CONTEXT: renderActionContext(message),
    USER_QUERY: message.text.trimEnd(),
  };
  const template = cursorPrompts.runtime[mode];
  const images: ContentPart[] = (message.images ?? []).map((image) => ({
    type: "image",
    mimeType: image.mimeType,
    data: image.data,
  }));
  const text = template.render({
    ...values,
    TIMESTAMP: formatTimestamp({ instant, timeZone: timeZone ?? "UTC" }),
  });
  const timeless = template.render({ ...values, TIMESTAMP: "" });
  return {
    content: [{ type: "text", text }, ...images],
    contentDigest: contentDigest([{ type: "text", text: timeless }, ...images]),
  };
}
