import { canonicalJson, sha256Hex } from "@cursor/run";
import { sortByKeys } from "./canonical-order.js";
import { cursorPrompts } from "./cursor-prompts.js";
import { renderAttributes } from "./escape-xml-attribute.js";
import { exposeMcpTools } from "./exposed-mcp-tools.js";
import type { PromptTemplate } from "./prompt-template.js";
import type {
  EnvironmentInput,
  GitRepositoryInput,
  McpServerInput,
  RequestContextInput,
  RuleInput,
  SkillInput,
  SubagentInput,
} from "./request-context-schema.js";
import { requestContextInputSchema } from "./request-context-schema.js";
import { parseOrThrow } from "./validation-issues.js";
import { RecentResults } from "./recent-results.js";
import { SchemaOutputMarks } from "./schema-output-marks.js";

/** The conversation-level context, ready for a `request-context:*` message. */
export interface CompiledRequestContext {
  readonly text: string;
  /** SHA-256 (hex) of `text`: layers above compare contexts by it. */
  readonly digest: string;
}

/** Leading blank lines and trailing whitespace carry nothing; indentation of the first line does. */
function bodyText(text: string): string {
  return text.replace(/^(?:[ \t]*\r?\n)+/, "").trimEnd();
}

/** `<tag attrs>\nbody\n</tag>`, or `<tag attrs/>` without a body. */
function element({
  tag,
  attributes,
  body,
}: {
  tag: string;
  attributes: Parameters<typeof renderAttributes>[0];
  body: string;
}): string {
  const open = `${tag}${renderAttributes(attributes)}`;
  const content = bodyText(body);
  return content === "" ? `<${open}/>` : `<${open}>\n${content}\n</${tag}>`;
}

/**
 * Renders each item and sorts by `keys` (fields shown in the markup), then by the rendered text,
 * so the order is total and equal entries end up adjacent; exact duplicates are collapsed (a
 * repeated entry tells the model nothing new).
 */
function renderList<T>({
  items,
  keys,
  render,
}: {
  items: readonly T[];
  keys: (item: T) => readonly string[];
  render: (item: T) => string;
}): string {
  const rendered = items.map((item) => ({ keys: keys(item), text: render(item) }));
  const sorted = sortByKeys(rendered, (entry) => [...entry.keys, entry.text]).map((e) => e.text);
  return sorted.filter((text, index) => text !== sorted[index - 1]).join("\n");
}

/** A section template with its one placeholder filled, or "" when there are no items. */
function section<Name extends string>({
  template,
  placeholder,
  items,
}: {
  template: PromptTemplate<Name>;
  placeholder: Name;
  items: string;
}): string {
  return items === "" ? "" : template.render({ [placeholder]: items } as Record<Name, string>);
}

function fileName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/**
 * Rules that repeat a skill are left out: the skill is listed (and read on demand) already.
 * That is a rule whose file is a SKILL.md, is a listed skill's file, or whose text equals a
 * skill's description. Empty rules say nothing and are left out too.
 */
function renderRules(rules: readonly RuleInput[], skills: readonly SkillInput[]): string {
  const skillPaths = new Set(skills.map((skill) => skill.path));
  const skillTexts = new Set(
    skills.map((skill) => bodyText(skill.description)).filter((t) => t !== ""),
  );
  const kept = rules.filter((rule) => {
    const content = bodyText(rule.content);
    const description = bodyText(rule.description ?? "");
    if (content === "" && description === "") return false;
    if (content !== "" && skillTexts.has(content)) return false;
    if (rule.path === undefined) return true;
    return fileName(rule.path).toLowerCase() !== "skill.md" && !skillPaths.has(rule.path);
  });
  return renderList({
    items: kept,
    keys: (rule) => [rule.path ?? "", rule.name],
    render: (rule) => {
      const description = bodyText(rule.description ?? "");
      // Globs are a set: sorted and deduplicated, so the client's order never shows.
      const globs = sortByKeys([...new Set(rule.globs ?? [])], (glob) => [glob]);
      return element({
        tag: "rule",
        attributes: [
          ["name", rule.name],
          ["path", rule.path],
          ["globs", globs.length === 0 ? undefined : globs.join(", ")],
          ["description", description === "" ? undefined : description],
        ],
        body: rule.content,
      });
    },
  });
}

function renderSkills(skills: readonly SkillInput[]): string {
  return renderList({
    items: skills,
    keys: (skill) => [skill.name, skill.path],
    render: (skill) =>
      element({
        tag: "skill",
        attributes: [
          ["name", skill.name],
          ["path", skill.path],
        ],
        body: skill.description,
      }),
  });
}

function renderSubagents(subagents: readonly SubagentInput[]): string {
  return renderList({
    items: subagents,
    keys: (subagent) => [subagent.name],
    render: (subagent) =>
      element({
        tag: "subagent",
        attributes: [["name", subagent.name]],
        body: subagent.description,
      }),
  });
}

/**
 * The time zone is part of the environment: it is stable for a conversation, and the runtime
 * message's timestamp is rendered in it, so the model can read one with the other.
 */
function renderEnvironment(env: EnvironmentInput | undefined): string {
  if (env === undefined) return "";
  const lines: string[] = [];
  if (env.os !== undefined) lines.push(`Operating system: ${env.os}`);
  if (env.shell !== undefined) lines.push(`Shell: ${env.shell}`);
  if (env.timeZone !== undefined) lines.push(`Time zone: ${env.timeZone}`);
  const workspacePaths = [...new Set(env.workspacePaths ?? [])];
  if (workspacePaths.length > 0) {
    lines.push("Workspace paths:");
    lines.push(...sortByKeys(workspacePaths, (path) => [path]).map((path) => `- ${path}`));
  }
  return lines.join("\n");
}

function renderGit(repositories: readonly GitRepositoryInput[]): string {
  return renderList({
    items: repositories,
    keys: (repository) => [repository.path, repository.branch ?? ""],
    render: (repository) =>
      element({
        tag: "repository",
        attributes: [
          ["path", repository.path],
          ["branch", repository.branch],
        ],
        body: repository.status ?? "",
      }),
  });
}

function renderMcp(servers: readonly McpServerInput[]): string {
  const tools = exposeMcpTools(servers);
  return renderList({
    items: servers,
    keys: (server) => [server.name],
    render: (server) => {
      const parts: string[] = [];
      const instructions = bodyText(server.instructions ?? "");
      if (instructions !== "") parts.push(`<instructions>\n${instructions}\n</instructions>`);
      for (const tool of tools.filter((candidate) => candidate.server === server.name)) {
        const description =
          tool.description === ""
            ? []
            : [`<description>\n${bodyText(tool.description)}\n</description>`];
        const schema = `<input_schema>${canonicalJson(tool.inputSchema)}</input_schema>`;
        parts.push(
          element({
            tag: "tool",
            attributes: [
              ["name", tool.name],
              ["mcp_name", tool.mcpName],
            ],
            body: [...description, schema].join("\n"),
          }),
        );
      }
      return element({
        tag: "mcp_server",
        attributes: [["name", server.name]],
        body: parts.join("\n"),
      });
    },
  });
}

// Request contexts the request schema already produced (`parseAgentRunRequest`).
const validContexts = new SchemaOutputMarks<RequestContextInput>();

/** Marks `context`, a fresh output of the request schema, as valid, and deep-freezes it. */
export function rememberValidRequestContext(context: RequestContextInput): void {
  validContexts.remember(context);
}

/**
 * Compiles the conversation-level context (rules, skills, subagents, environment, git, MCP) into
 * one text in fixed sections. Deterministic: lists in canonical order, MCP schemas in canonical
 * key order, nothing volatile, empty sections left out. `undefined` when there is nothing to say.
 */
export function compileRequestContext(
  input: RequestContextInput | undefined,
): CompiledRequestContext | undefined {
  if (input === undefined) return undefined;
  const known = validContexts.has(input);
  // A context already compiled (the same one, sent again with the next turn): its result. Only
  // frozen contexts are compared (a parsed request's), so no stored entry can change later.
  if (known) {
    const recent = recentCompilations.get(input);
    if (recent !== undefined) return recent.compiled;
  }
  const context = known
    ? input
    : parseOrThrow({
        schema: requestContextInputSchema,
        input,
        what: "request context",
      });
  const compiled = render(context);
  if (known && (compiled?.text.length ?? 0) <= maxRememberedTextLength) {
    recentCompilations.set(input, { compiled });
  }
  return compiled;
}

// The last compilations (a gateway's conversations mostly send the same few contexts). Bounded
// in count (a miss compares with each entry) and in size: a context whose text is longer than
// this is compiled every time, so the entries hold at most a few MB.
const recentCompilations = new RecentResults<
  RequestContextInput,
  { readonly compiled: CompiledRequestContext | undefined }
>(4);
const maxRememberedTextLength = 256 * 1024;

function render(context: RequestContextInput): CompiledRequestContext | undefined {
  const templates = cursorPrompts.requestContextSections;
  const skills = context.skills ?? [];
  const sections = {
    RULES: section({
      template: templates.rules,
      placeholder: "RULES",
      items: renderRules(context.rules ?? [], skills),
    }),
    SKILLS: section({
      template: templates.skills,
      placeholder: "SKILLS",
      items: renderSkills(skills),
    }),
    SUBAGENTS: section({
      template: templates.subagents,
      placeholder: "SUBAGENTS",
      items: renderSubagents(context.subagents ?? []),
    }),
    ENVIRONMENT: section({
      template: templates.environment,
      placeholder: "ENVIRONMENT",
      items: renderEnvironment(context.env),
    }),
    GIT: section({
      template: templates.git,
      placeholder: "REPOSITORIES",
      items: renderGit(context.git ?? []),
    }),
    MCP: section({
      template: templates.mcp,
      placeholder: "SERVERS",
      items: renderMcp(context.mcp?.servers ?? []),
    }),
  };
  if (Object.values(sections).every((text) => text === "")) return undefined;
  const text = cursorPrompts.requestContext.render(sections);
  return Object.freeze({ text, digest: sha256Hex(text) });
}
