// `@cursor/wire/testing`: a scripted Cursor IDE client for end-to-end tests and benchmarks.
export { MemoryIdeBlobStore } from "./testing/ide-blob-store.js";
export { createInProcessFetch } from "./testing/in-process-fetch.js";
export type { FetchLike } from "./testing/in-process-fetch.js";
export { IdeWorkspace } from "./testing/ide-workspace.js";
export type { IdeExecRecord, IdeShellRun, IdeWorkspaceOptions } from "./testing/ide-workspace.js";
export { ScriptedIdeClient } from "./testing/scripted-ide-client.js";
export type {
  IdeEndStream,
  IdeReaction,
  IdeTurnInput,
  IdeTurnResult,
  ScriptedIdeClientOptions,
} from "./testing/scripted-ide-client.js";
export { ManualTimers } from "./session/wire-timers.js";
// The message schemas a test needs to build raw client messages (malformed, duplicated, late).
export {
  AgentClientMessageSchema,
  ExecClientControlMessageSchema,
  ExecClientMessageSchema,
} from "./gen/agent_v1_pb.js";
export type {
  AgentServerMessage,
  ExecServerMessage,
  InteractionQuery,
  InteractionUpdate,
} from "./gen/agent_v1_pb.js";
