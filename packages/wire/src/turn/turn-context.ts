import type { AgentServerMessage } from "../gen/agent_v1_pb.js";
import type { WirePorts } from "../ports.js";
import type { ClientBlobLedger } from "../session/client-blob-ledger.js";
import type { KvChannel } from "../session/kv-channel.js";
import type { WireTimers } from "../session/wire-timers.js";
import type { TurnRecordPacks } from "../state/turn-record-packs.js";
import type { UiTurnMemory } from "../state/ui-turn-memory.js";
import type { ToolBridgeFactory } from "./tool-bridge.js";

/** What a turn needs of the gateway (shared by every stream). */
export interface CursorTurnDeps {
  readonly ports: WirePorts;
  readonly ledger: ClientBlobLedger;
  readonly records: TurnRecordPacks;
  readonly uiTurns: UiTurnMemory;
  readonly timers: WireTimers;
  readonly toolBridge: ToolBridgeFactory;
  readonly maxToolRounds: number;
}

/** What a turn needs of its run stream. */
export interface CursorTurnStream {
  readonly requestId: string;
  readonly kv: KvChannel;
  /** Aborted when the client cancels, is gone, or the gateway shuts down. */
  readonly signal: AbortSignal;
  send(message: AgentServerMessage): void;
  /** Called once the conversation is known: ends other streams of it (a new run wins). */
  claimConversation(conversationId: string): Promise<void>;
  /** Hands the stream's exec / interaction results to this turn's tool bridge. */
  attachToolBridge(bridge: ReturnType<ToolBridgeFactory>): void;
}
