import { createCheckpointState, encodeCheckpoint } from "@cursor/checkpoint";
import type { AgentSession } from "@cursor/testkit";
import { generateAgentSession } from "@cursor/testkit";
import { CanonicalConversation } from "../growth/canonical-conversation.js";
import type { RunSessionEvent } from "../growth/canonical-conversation.js";
import { benchCheckpointSecret } from "../harness/gateway-harness.js";
import { promptSpecFor } from "../harness/prompt-spec-for.js";

/** The gateway's tenant when it runs without tokens (loopback only). */
const localTenant = "local";

export interface SeededConversation {
  readonly conversationId: string;
  /** A client checkpoint of the first `historyTurns` user turns, signed for the bench gateway. */
  readonly checkpoint: string;
  /** The session's events after those turns (restarts left out): what the client sends next. */
  readonly next: readonly RunSessionEvent[];
  /** Canonical messages in the seeded history. */
  readonly messages: number;
  /** The seeded history as JSON, in bytes. */
  readonly historyBytes: number;
}

/**
 * A conversation with `historyTurns` user turns of history, handed to the gateway the way a
 * client resumes one: the first request carries a checkpoint. Building long histories over HTTP
 * would measure the setup, not the turns after it.
 */
export function seededConversation({
  conversationId,
  historyTurns,
  followingTurns,
  seed,
  toolResultChars,
}: {
  conversationId: string;
  historyTurns: number;
  followingTurns: number;
  seed: number;
  toolResultChars: number;
}): SeededConversation {
  const session: AgentSession = generateAgentSession({
    seed,
    conversationId,
    turns: historyTurns + followingTurns,
    toolResultChars,
    features: { compaction: false, restarts: false },
  });
  const events = session.events.filter((e): e is RunSessionEvent => e.type !== "restart");
  const firstTurn = events.find((e) => e.type === "user-turn");
  const promptSpec = promptSpecFor(firstTurn?.body.requestContext);
  const conversation = new CanonicalConversation({ conversationId, promptSpec });
  let position = 0;
  while (position < events.length) {
    const event = events[position]!;
    if (event.type === "user-turn" && conversation.userTurns === historyTurns) break;
    conversation.apply(event);
    position += 1;
  }
  const head = conversation.head;
  const checkpoint = encodeCheckpoint({
    state: createCheckpointState({
      conversationId,
      history: head.history,
      turns: head.turns,
      latestRequestContextId: head.history.latestRequestContext()?.id,
      promptSpecDigest: promptSpec.digest,
    }),
    secret: benchCheckpointSecret,
    audience: localTenant,
  });
  return {
    conversationId,
    checkpoint,
    next: events.slice(position),
    messages: head.history.length,
    historyBytes: Buffer.byteLength(JSON.stringify(head.history.messages)),
  };
}
