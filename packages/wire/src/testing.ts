// `@cursor/wire/testing`: a scripted Cursor IDE client for end-to-end tests and benchmarks.
export { MemoryIdeBlobStore } from "./testing/ide-blob-store.js";
export { createInProcessFetch } from "./testing/in-process-fetch.js";
export type { FetchLike } from "./testing/in-process-fetch.js";
export { ScriptedIdeClient } from "./testing/scripted-ide-client.js";
export type {
  IdeEndStream,
  IdeReaction,
  IdeTurnInput,
  IdeTurnResult,
  ScriptedIdeClientOptions,
} from "./testing/scripted-ide-client.js";
export { ManualTimers } from "./session/wire-timers.js";
