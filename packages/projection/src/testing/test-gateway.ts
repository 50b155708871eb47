import { decodeCheckpoint, encodeCheckpoint } from "@cursor/checkpoint";
import { parseAgentRunRequest } from "@cursor/request";
import { HistoryLog, runModelLoop } from "@cursor/run";
import type { CanonicalMessage, ModelLoopOutcome, PromptSpec } from "@cursor/run";
import { headFromCheckpointState, headToCheckpointState } from "../checkpoint-projection.js";
import { commitTurnPlan, recordTurnPlan } from "../commit-turn-plan.js";
import { createConversationCompactor } from "../conversation-compactor.js";
import { createConversationHead } from "../conversation-head.js";
import type { ConversationHead, TurnRecord } from "../conversation-head.js";
import { prepareTurn } from "../prepare-turn.js";
import type { TurnPlan } from "../turn-plan.js";
import { ScriptedProvider } from "./scripted-provider.js";

/** The secret the test gateway signs checkpoints with. */
export const testCheckpointSecret = "projection-test-secret-0123456789abcdef";
const secret = testCheckpointSecret;
const model = "test-model";

/** What a persistent store keeps of a conversation between requests. */
interface StoredConversation {
  readonly epoch: number;
  readonly messages: readonly CanonicalMessage[];
  readonly turns: readonly TurnRecord[];
  readonly lastRunId: string | undefined;
}

export interface SendResult {
  readonly plan: TurnPlan;
  readonly outcome: ModelLoopOutcome | undefined;
  /** The checkpoint the client receives after the request. */
  readonly checkpoint: string;
  readonly head: ConversationHead;
}

/**
 * A miniature gateway for the integration suites: validates a raw request, loads the head from
 * the client's checkpoint, the process memory or the store, plans the turn with `prepareTurn`,
 * runs @cursor/run's model loop against a scripted provider, compacts with the conversation
 * compactor (`createConversationCompactor`, the gateway's), persists, and hands back a checkpoint. Only the HTTP layer and a real
 * database are missing; every decision is the production code's.
 */
export class TestGateway {
  readonly provider: ScriptedProvider;
  readonly summarizer: ScriptedProvider;
  readonly promptSpec: PromptSpec;
  /** Automatic compaction's input token budget; set it to force a compaction. */
  budgetTokens: number | undefined;
  readonly #store = new Map<string, StoredConversation>();
  #live = new Map<string, ConversationHead>();
  #active: ConversationHead | undefined;
  #clock = Date.parse("2026-11-29T09:00:00Z");

  constructor({ promptSpec, budgetTokens }: { promptSpec: PromptSpec; budgetTokens?: number }) {
    this.promptSpec = promptSpec;
    this.budgetTokens = budgetTokens;
    const epoch = () => this.#active?.history.epoch ?? 0;
    this.provider = new ScriptedProvider({ epoch });
    this.summarizer = new ScriptedProvider({ epoch });
  }

  /** A process restart: in-memory heads are gone, the store stays. */
  restart(): void {
    this.#live = new Map();
  }

  /** The head as the store has it (what a fresh process would load). */
  storedHead(conversationId: string): ConversationHead | undefined {
    const stored = this.#store.get(conversationId);
    if (stored === undefined) return undefined;
    return createConversationHead({
      conversationId,
      history: new HistoryLog({ epoch: stored.epoch, messages: stored.messages }),
      turns: stored.turns,
      lastRunId: stored.lastRunId,
    });
  }

  head(conversationId: string): ConversationHead | undefined {
    return this.#live.get(conversationId) ?? this.storedHead(conversationId);
  }

  async send(body: unknown): Promise<SendResult> {
    const parsed = parseAgentRunRequest(body);
    if (!parsed.success) {
      throw new Error(`invalid request: ${parsed.issues.map((i) => i.message).join("; ")}`);
    }
    const request = parsed.data;
    let head = this.#load(request.conversationId, request.checkpoint);
    this.#active = head;
    this.#clock += 60_000;
    const plan = prepareTurn({
      head,
      request,
      promptSpec: this.promptSpec,
      now: new Date(this.#clock),
    });
    let outcome: ModelLoopOutcome | undefined;
    // The store is written once per request (`#persist`), so the epoch needs no write of its own.
    const compact = createConversationCompactor({
      provider: this.summarizer,
      conversationId: head.conversationId,
      model,
      persistEpoch: () => undefined,
    });
    switch (plan.next) {
      case "compact":
        head = commitTurnPlan({ head, plan });
        await compact({ reason: "manual", trigger: "manual", history: head.history, current: [] });
        break;
      case "call-model": {
        outcome = await runModelLoop({
          conversationId: head.conversationId,
          runId: plan.runId,
          model,
          promptSpec: this.promptSpec,
          ...(plan.allowedTools === undefined ? {} : { allowedTools: plan.allowedTools }),
          history: head.history,
          pending: plan.appended,
          currentInitialMessages: plan.currentInitialMessages,
          provider: this.provider,
          commit: () => undefined,
          ...(this.budgetTokens === undefined
            ? {}
            : { compaction: { budgetTokens: this.budgetTokens, compact } }),
        });
        if (outcome.reason === "failed") throw new Error(outcome.error?.message);
        // The plan's messages reached the history with the first commit (or a compaction).
        const committed =
          plan.appended.length === 0 ||
          outcome.appended.some((message) => message.id === plan.appended[0]!.id);
        if (committed) head = recordTurnPlan({ head, plan });
        break;
      }
      case "await-tools":
      case "done":
        head = commitTurnPlan({ head, plan });
        break;
      default: {
        const exhaustive: never = plan;
        throw new Error(`unknown plan ${JSON.stringify(exhaustive)}`);
      }
    }
    this.#persist(head);
    const state = headToCheckpointState(head, { promptSpecDigest: this.promptSpec.digest });
    return { plan, outcome, head, checkpoint: encodeCheckpoint({ state, secret }) };
  }

  #load(conversationId: string, checkpoint: string | undefined): ConversationHead {
    if (checkpoint !== undefined) {
      return headFromCheckpointState(
        decodeCheckpoint({ token: checkpoint, secret, conversationId }),
      );
    }
    return this.head(conversationId) ?? createConversationHead({ conversationId });
  }

  #persist(head: ConversationHead): void {
    this.#live.set(head.conversationId, head);
    this.#store.set(head.conversationId, {
      epoch: head.history.epoch,
      messages: [...head.history.messages],
      turns: head.turns,
      lastRunId: head.lastRunId,
    });
  }
}
