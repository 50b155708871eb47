// Mounting the wire
export { createCursorWire } from "./cursor-wire.js";
export type { CursorWire, CursorWireOptions, RunSseResponse, WireRequest } from "./cursor-wire.js";
export { wireRoutes } from "./routes.js";
export { unaryErrorReply } from "./connect/end-stream.js";
export type { UnaryReply } from "./connect/end-stream.js";
export type { RequestHeaders } from "./connect/request-body.js";
export { defaultSessionLimits } from "./session/run-session.js";
export type { SessionLimits } from "./session/run-session.js";
export { systemTimers } from "./session/wire-timers.js";
export type { TimerHandle, WireTimers } from "./session/wire-timers.js";

// Ports (what the server gives the wire)
export type {
  AgentRunRequestJson,
  HydratedHeadLike,
  WireLogger,
  WireModel,
  WirePorts,
  WirePreparedRun,
  WireRunEndReason,
  WireRunError,
  WireRunEvent,
  WireRunOutcome,
  WireRunSink,
} from "./ports.js";
export { MemoryClientBlobLedger } from "./session/client-blob-ledger.js";
export type { ClientBlobLedger } from "./session/client-blob-ledger.js";

// Tool rounds
export { toolNotAvailableText, unavailableToolBridge } from "./turn/tool-bridge.js";
export type {
  ToolBridge,
  ToolBridgeFactory,
  ToolBridgeSession,
  ToolRoundCall,
  ToolRoundResult,
} from "./turn/tool-bridge.js";

// For a proxy in front of Cursor
export { peekRunRequest, peekRunSse } from "./peek-run-request.js";
export type { PeekedAppend } from "./peek-run-request.js";
export { isDefaultModelId } from "./translate/resolve-model.js";
export {
  availableModelsAdditions,
  availableModelsReply,
  usableModelsReply,
} from "./models/model-lists.js";
export { mergeAvailableModels, mergeUsableModels } from "./models/merge-model-lists.js";

// Protocol pieces
export { ConnectError, connectCodes, connectHttpStatus } from "./connect/connect-error.js";
export type { ConnectCode, ConnectErrorDetail, ErrorDetailKind } from "./connect/connect-error.js";
export {
  EnvelopeDecoder,
  encodeEnvelope,
  envelopeFlags,
  maxEnvelopeBytes,
} from "./connect/envelope.js";
export type { Envelope } from "./connect/envelope.js";
export { KvFailure } from "./session/kv-channel.js";
