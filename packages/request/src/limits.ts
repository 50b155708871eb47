const kib = 1024;
const mib = 1024 * kib;

/**
 * Limits of an agent run request. Sizes of text are UTF-8 bytes; the whole body is capped at the
 * HTTP layer (`maxBodyBytes`), so these bound single fields that would otherwise be unbounded.
 */
export const requestLimits = Object.freeze({
  /** Whole request body, enforced by the HTTP layer before parsing. */
  maxBodyBytes: 32 * mib,
  /** `conversationId`: 1..128 of [A-Za-z0-9._:-] (gateway contract). */
  maxConversationIdLength: 128,
  /** Client ids (run, message, call, injection ids): 1..128 printable ASCII without spaces. */
  maxClientIdLength: 128,
  /**
   * Background task ids: 1..100, so `runtime:bg.<kind>.<taskId>.<toolCallId>` stays within the
   * 256-character message ids of @cursor/run.
   */
  maxTaskIdLength: 100,
  /** `model`. */
  maxModelLength: 256,
  /** Names of rules, skills, subagents, MCP servers and tools; titles. */
  maxNameLength: 256,
  /** File paths. */
  maxPathLength: 4096,
  /** Free text: the user's query, rule bodies, descriptions, instructions, git status, details. */
  maxTextBytes: 1 * mib,
  /** File and terminal contents of selected context, and tool outputs. */
  maxFileContentBytes: 4 * mib,
  /** Every list (selected context, files, rules, skills, MCP servers and tools, results). */
  maxListItems: 1000,
  /** Images attached to one user message. */
  maxImages: 32,
  /** One image's base64 data. */
  maxImageBase64Bytes: 20 * mib,
  /** One MCP tool input schema, as canonical JSON, and its nesting depth. */
  maxInputSchemaBytes: 256 * kib,
  maxInputSchemaDepth: 32,
  /** `checkpoint`: opaque, bounded only by the body limit. */
  maxCheckpointBytes: 32 * mib,
  /** `checkpointChain`: checkpoints in one chain (one per run of an epoch). */
  maxCheckpointChainLength: 100_000,
  /** Lines of a file (open files, code selections). */
  maxLineNumber: 100_000_000,
});
