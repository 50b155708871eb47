import { z } from "zod";
import { requestLimits } from "./limits.js";
import { mcpToolName } from "./mcp-tool-name.js";
import {
  boundedList,
  boundedText,
  inputSchemaSchema,
  nameSchema,
  pathSchema,
} from "./schema-primitives.js";

const textSchema = boundedText(requestLimits.maxTextBytes);

export const ruleInputSchema = z.strictObject({
  name: nameSchema,
  /** Absent for rules that are not files (user rules from the editor's settings). */
  path: pathSchema.optional(),
  /** An empty rule without a description is accepted and left out of the compiled context. */
  content: textSchema,
  /**
   * When the rule applies, for rules the model picks itself (Cursor's "agent requested" rules).
   * A rule with a description and no content is listed so the model can read its file.
   */
  description: textSchema.optional(),
  /** File patterns the rule applies to (Cursor's "auto attached" rules); order is irrelevant. */
  globs: boundedList(pathSchema).optional(),
});

export const skillInputSchema = z.strictObject({
  name: nameSchema,
  path: pathSchema,
  description: textSchema,
});

export const subagentInputSchema = z.strictObject({
  name: nameSchema,
  description: textSchema,
});

/** IANA time zone names ("Europe/Berlin", "UTC", "Etc/GMT+1") that this runtime knows. */
const timeZoneTextSchema = z
  .string()
  .min(1, "must not be empty")
  .max(64, "must be at most 64 characters")
  .regex(/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/, "must be an IANA time zone name")
  .refine(isKnownTimeZone, { message: "must be a time zone this runtime knows" });

/** An IANA time zone name this runtime knows. Names it accepted are remembered (bounded). */
export const timeZoneSchema = timeZoneTextSchema.transform((timeZone) => {
  if (acceptedTimeZones.size < maxCachedTimeZones) acceptedTimeZones.add(timeZone);
  return timeZone;
});

// Zone names the schema accepted: a compiler handed one again checks it without the schema.
const acceptedTimeZones = new Set<string>();

/** Did `timeZoneSchema` accept this name before? (Never true for a name it would refuse.) */
export function isAcceptedTimeZone(timeZone: string): boolean {
  return acceptedTimeZones.has(timeZone);
}

// Building an Intl.DateTimeFormat costs about a millisecond, and every request is validated
// several times over (parse, compile): answers are kept, bounded, since zones are few.
const knownTimeZones = new Map<string, boolean>();
const maxCachedTimeZones = 1024;

function isKnownTimeZone(timeZone: string): boolean {
  const cached = knownTimeZones.get(timeZone);
  if (cached !== undefined) return cached;
  let known: boolean;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    known = true;
  } catch {
    known = false;
  }
  if (knownTimeZones.size < maxCachedTimeZones) knownTimeZones.set(timeZone, known);
  return known;
}

export const environmentInputSchema = z.strictObject({
  os: nameSchema.optional(),
  shell: nameSchema.optional(),
  workspacePaths: boundedList(pathSchema).optional(),
  timeZone: timeZoneSchema.optional(),
});

export const gitRepositoryInputSchema = z.strictObject({
  path: pathSchema,
  /** Absent on a detached HEAD. */
  branch: nameSchema.optional(),
  /** `git status --short` output; empty or absent for a clean tree. */
  status: textSchema.optional(),
});

export const mcpToolInputSchema = z.strictObject({
  name: nameSchema,
  description: textSchema.optional(),
  inputSchema: inputSchemaSchema,
});

export const mcpServerInputSchema = z
  .strictObject({
    name: nameSchema,
    instructions: textSchema.optional(),
    tools: boundedList(mcpToolInputSchema).optional(),
  })
  .superRefine((server, context) => {
    const firstIndex = new Map<string, number>();
    server.tools?.forEach((tool, index) => {
      if (firstIndex.has(tool.name)) {
        context.addIssue({
          code: "custom",
          path: ["tools", index, "name"],
          message: `duplicates the name of tools[${firstIndex.get(tool.name)}]`,
        });
      } else {
        firstIndex.set(tool.name, index);
      }
    });
  });

export const mcpInputSchema = z
  .strictObject({ servers: boundedList(mcpServerInputSchema) })
  .superRefine(({ servers }, context) => {
    const serverIndex = new Map<string, number>();
    const exposedBy = new Map<string, string>();
    servers.forEach((server, index) => {
      if (serverIndex.has(server.name)) {
        context.addIssue({
          code: "custom",
          path: ["servers", index, "name"],
          message: `duplicates the name of servers[${serverIndex.get(server.name)}]`,
        });
        return;
      }
      serverIndex.set(server.name, index);
      server.tools?.forEach((tool, toolIndex) => {
        const exposed = mcpToolName({ server: server.name, tool: tool.name });
        const owner = exposedBy.get(exposed);
        if (owner !== undefined && owner !== `${server.name}\u0000${tool.name}`) {
          context.addIssue({
            code: "custom",
            path: ["servers", index, "tools", toolIndex, "name"],
            message: `is exposed as ${exposed}, the name of another MCP tool`,
          });
        }
        exposedBy.set(exposed, `${server.name}\u0000${tool.name}`);
      });
    });
  });

export const requestContextInputSchema = z.strictObject({
  rules: boundedList(ruleInputSchema).optional(),
  skills: boundedList(skillInputSchema).optional(),
  subagents: boundedList(subagentInputSchema).optional(),
  env: environmentInputSchema.optional(),
  git: boundedList(gitRepositoryInputSchema).optional(),
  mcp: mcpInputSchema.optional(),
});

export type RuleInput = z.infer<typeof ruleInputSchema>;
export type SkillInput = z.infer<typeof skillInputSchema>;
export type SubagentInput = z.infer<typeof subagentInputSchema>;
export type EnvironmentInput = z.infer<typeof environmentInputSchema>;
export type GitRepositoryInput = z.infer<typeof gitRepositoryInputSchema>;
export type McpToolInput = z.infer<typeof mcpToolInputSchema>;
export type McpServerInput = z.infer<typeof mcpServerInputSchema>;
export type RequestContextInput = z.infer<typeof requestContextInputSchema>;
