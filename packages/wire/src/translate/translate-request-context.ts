import { toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { timeZoneSchema } from "@cursor/request";
import type {
  McpServerInput,
  McpToolInput,
  RequestContextInput,
  RuleInput,
  SkillInput,
  SubagentInput,
} from "@cursor/request";
import type { JsonObject } from "@cursor/run";
import { canonicalJson } from "@cursor/run";
import type {
  AgentSkill,
  CursorRule,
  CustomSubagent,
  GitRepoInfo,
  McpInstructions,
  McpToolDefinition,
  RequestContextEnv,
  SkillOptions,
} from "../gen/agent_v1_pb.js";
import { CursorRuleSource } from "../gen/agent_v1_pb.js";

/** The conversation-level parts of a Cursor request context, wherever each came from. */
export interface CursorContextParts {
  readonly rules: readonly CursorRule[];
  readonly nonFileRules: readonly CursorRule[];
  readonly cloudRule: string | undefined;
  readonly agentSkills: readonly AgentSkill[];
  readonly skillOptions: SkillOptions | undefined;
  readonly customSubagents: readonly CustomSubagent[];
  readonly mcpTools: readonly McpToolDefinition[];
  readonly mcpInstructions: readonly McpInstructions[];
  readonly env: RequestContextEnv | undefined;
  readonly gitRepos: readonly GitRepoInfo[];
}

/** Something the translation dropped, for the log (never shown to the model). */
export interface ContextWarning {
  readonly what: string;
  readonly reason: string;
}

function baseName(path: string): string {
  return (
    path
      .split(/[\\/]/)
      .filter((part) => part !== "")
      .pop() ?? path
  );
}

function withoutExtension(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text.trim() === "" ? undefined : text;
}

/**
 * A Cursor rule as the request context shows it. Always-applied rules carry their content; an
 * auto-attached rule its globs too; an agent-requested rule its description. Manually attached
 * rules apply only when the user attaches them (then they arrive as selected context), so they
 * are not conversation-level context.
 */
function ruleInput(rule: CursorRule, fallbackName: string): RuleInput | undefined {
  const type = rule.type?.type;
  if (type?.case === "manuallyAttached") return undefined;
  const path = nonEmpty(rule.fullPath);
  const name = path === undefined ? fallbackName : withoutExtension(baseName(path));
  const globs = type?.case === "fileGlobbed" ? type.value.globs.filter((g) => g !== "") : [];
  const description = type?.case === "agentFetched" ? nonEmpty(type.value.description) : undefined;
  return {
    name,
    ...(path === undefined ? {} : { path }),
    content: rule.content,
    ...(description === undefined ? {} : { description }),
    ...(globs.length === 0 ? {} : { globs }),
  };
}

function ruleName(rule: CursorRule): string {
  return rule.source === CursorRuleSource.TEAM ? "team rule" : "user rule";
}

function rulesOf(parts: CursorContextParts): RuleInput[] {
  const rules: RuleInput[] = [];
  for (const rule of parts.rules) {
    const input = ruleInput(rule, ruleName(rule));
    if (input !== undefined) rules.push(input);
  }
  for (const rule of parts.nonFileRules) {
    const input = ruleInput(rule, ruleName(rule));
    if (input !== undefined) rules.push(input);
  }
  const cloud = nonEmpty(parts.cloudRule);
  if (cloud !== undefined) rules.push({ name: "cloud rule", content: cloud });
  return rules;
}

/** The skill's name: the folder of its SKILL.md (`skills/pdf/SKILL.md` → `pdf`). */
function skillName(path: string): string {
  const parts = path.split(/[\\/]/).filter((part) => part !== "");
  const file = parts.at(-1) ?? path;
  return file.toLowerCase() === "skill.md" && parts.length > 1
    ? parts.at(-2)!
    : withoutExtension(file);
}

function skillsOf(parts: CursorContextParts): SkillInput[] {
  const byPath = new Map<string, SkillInput>();
  // Sorted first, so which of two entries for one path wins never depends on the client's order.
  const agentSkills = [...parts.agentSkills].sort((a, b) =>
    compare(`${a.fullPath}\u0000${a.description}`, `${b.fullPath}\u0000${b.description}`),
  );
  const descriptors = [...(parts.skillOptions?.skillDescriptors ?? [])].sort((a, b) =>
    compare(
      `${a.readmeFilePath}\u0000${a.folderPath}\u0000${a.name}\u0000${a.description}`,
      `${b.readmeFilePath}\u0000${b.folderPath}\u0000${b.name}\u0000${b.description}`,
    ),
  );
  for (const skill of agentSkills) {
    // A skill the user keeps for manual use only, or that failed to parse, is not offered.
    if (skill.disableModelInvocation || nonEmpty(skill.parseError) !== undefined) continue;
    const path = nonEmpty(skill.fullPath);
    if (path === undefined || byPath.has(path)) continue;
    byPath.set(path, { name: skillName(path), path, description: skill.description });
  }
  for (const descriptor of descriptors) {
    if (!descriptor.enabled || nonEmpty(descriptor.parseError) !== undefined) continue;
    const path = nonEmpty(descriptor.readmeFilePath) ?? nonEmpty(descriptor.folderPath);
    if (path === undefined || byPath.has(path)) continue;
    byPath.set(path, {
      name: nonEmpty(descriptor.name) ?? skillName(path),
      path,
      description: descriptor.description,
    });
  }
  return [...byPath.values()];
}

function subagentsOf(parts: CursorContextParts): SubagentInput[] {
  return parts.customSubagents
    .filter((subagent) => nonEmpty(subagent.name) !== undefined)
    .map((subagent) => ({ name: subagent.name, description: subagent.description }));
}

function knownTimeZone(zone: string): string | undefined {
  // The request schema's own check, so the wire never passes a zone the service refuses.
  return zone.trim() !== "" && timeZoneSchema.safeParse(zone).success ? zone : undefined;
}

function envOf(
  env: RequestContextEnv | undefined,
  warnings: ContextWarning[],
): RequestContextInput["env"] | undefined {
  if (env === undefined) return undefined;
  const timeZone = knownTimeZone(env.timeZone);
  if (timeZone === undefined && env.timeZone.trim() !== "") {
    warnings.push({ what: "env.time_zone", reason: `unknown time zone ${env.timeZone}` });
  }
  const workspacePaths = env.workspacePaths.filter((path) => path !== "");
  const result = {
    ...(nonEmpty(env.osVersion) === undefined ? {} : { os: env.osVersion }),
    ...(nonEmpty(env.shell) === undefined ? {} : { shell: env.shell }),
    ...(workspacePaths.length === 0 ? {} : { workspacePaths }),
    ...(timeZone === undefined ? {} : { timeZone }),
  };
  return Object.keys(result).length === 0 ? undefined : result;
}

function gitOf(repos: readonly GitRepoInfo[]): NonNullable<RequestContextInput["git"]> {
  return repos
    .filter((repo) => nonEmpty(repo.path) !== undefined)
    .map((repo) => ({
      path: repo.path,
      ...(nonEmpty(repo.branchName) === undefined ? {} : { branch: repo.branchName }),
      ...(repo.status === "" ? {} : { status: repo.status }),
    }));
}

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A tool's JSON Schema: `input_schema_json` when set, else the `input_schema` Value. */
function inputSchemaOf(tool: McpToolDefinition): JsonObject | undefined {
  if (tool.inputSchemaJson !== undefined && tool.inputSchemaJson.trim() !== "") {
    try {
      const parsed: unknown = JSON.parse(tool.inputSchemaJson);
      return isPlainObject(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
  if (tool.inputSchema === undefined) return {};
  const json = toJson(ValueSchema, tool.inputSchema);
  return isPlainObject(json) ? (json as JsonObject) : undefined;
}

/**
 * MCP servers from the tool definitions (grouped by `provider_identifier`, the server's stable
 * identifier, which also names the exposed tools) and the servers' instructions. A tool listed
 * twice with different definitions keeps the first in canonical order, so the client's order
 * never decides.
 */
function mcpOf(
  parts: CursorContextParts,
  warnings: ContextWarning[],
): RequestContextInput["mcp"] | undefined {
  const servers = new Map<string, { tools: Map<string, McpToolInput[]>; instructions: string[] }>();
  const serverOf = (name: string) => {
    let server = servers.get(name);
    if (server === undefined) {
      server = { tools: new Map(), instructions: [] };
      servers.set(name, server);
    }
    return server;
  };
  for (const tool of parts.mcpTools) {
    const serverName = nonEmpty(tool.providerIdentifier) ?? "mcp";
    const toolName = nonEmpty(tool.toolName) ?? nonEmpty(tool.name);
    if (toolName === undefined) continue;
    const inputSchema = inputSchemaOf(tool);
    if (inputSchema === undefined || ("type" in inputSchema && inputSchema.type !== "object")) {
      warnings.push({
        what: `MCP tool ${serverName}/${toolName}`,
        reason: "its input schema is not a JSON object schema",
      });
      continue;
    }
    const candidates = serverOf(serverName).tools.get(toolName) ?? [];
    candidates.push({
      name: toolName,
      ...(tool.description === "" ? {} : { description: tool.description }),
      inputSchema,
    });
    serverOf(serverName).tools.set(toolName, candidates);
  }
  for (const instructions of parts.mcpInstructions) {
    const serverName = nonEmpty(instructions.serverIdentifier) ?? nonEmpty(instructions.serverName);
    if (serverName === undefined || nonEmpty(instructions.instructions) === undefined) continue;
    serverOf(serverName).instructions.push(instructions.instructions);
  }
  if (servers.size === 0) return undefined;
  const result: McpServerInput[] = [];
  for (const [name, server] of servers) {
    const tools = [...server.tools.values()].map(
      (candidates) =>
        [...candidates].sort((a, b) => compare(canonicalJson(a), canonicalJson(b)))[0]!,
    );
    const instructions = [...new Set(server.instructions)].sort(compare).join("\n\n");
    result.push({
      name,
      ...(instructions === "" ? {} : { instructions }),
      ...(tools.length === 0 ? {} : { tools }),
    });
  }
  return { servers: result };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The JSON contract's `requestContext` for a Cursor request context: rules (file, non-file and
 * cloud), skills, custom subagents, environment, git repositories, MCP tools and instructions.
 * Everything the model sees is compiled by `@cursor/request` exactly as for `POST /v1/runs`, so
 * a reordered or unchanged context compiles to the same digest and appends nothing.
 */
export function translateRequestContext(parts: CursorContextParts): {
  context: RequestContextInput;
  warnings: ContextWarning[];
} {
  const warnings: ContextWarning[] = [];
  const rules = rulesOf(parts);
  const skills = skillsOf(parts);
  const subagents = subagentsOf(parts);
  const env = envOf(parts.env, warnings);
  const git = gitOf(parts.gitRepos);
  const mcp = mcpOf(parts, warnings);
  return {
    context: {
      ...(rules.length === 0 ? {} : { rules }),
      ...(skills.length === 0 ? {} : { skills }),
      ...(subagents.length === 0 ? {} : { subagents }),
      ...(env === undefined ? {} : { env }),
      ...(git.length === 0 ? {} : { git }),
      ...(mcp === undefined ? {} : { mcp }),
    },
    warnings,
  };
}
