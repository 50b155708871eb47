import { HistoryLog } from "@cursor/run";
import type { CanonicalMessage } from "@cursor/run";
import type { CheckpointState, CheckpointTurn } from "../checkpoint-state.js";
import { createCheckpointState } from "../create-checkpoint-state.js";
import type { BuiltHistory } from "./histories.js";

export const testSecret = "test-secret-0123456789abcdef";
export const conversationId = "conv-1";

export function stateOf(built: BuiltHistory, id: string = conversationId): CheckpointState {
  return createCheckpointState({
    conversationId: id,
    history: built.history,
    turns: built.turns,
    ...(built.latestRequestContextId === undefined
      ? {}
      : { latestRequestContextId: built.latestRequestContextId }),
  });
}

/** The state after the first `turnCount` turns of a built history (a turn boundary). */
export function prefixState(built: BuiltHistory, turnCount: number): CheckpointState {
  const turns: CheckpointTurn[] = built.turns.slice(0, turnCount);
  const count = turns.reduce((sum, turn) => sum + turn.messageIds.length, 0);
  const offset = built.epoch > 0 ? 1 : 0;
  const messages: CanonicalMessage[] = built.messages.slice(0, offset + count);
  const history = new HistoryLog({ epoch: built.epoch, messages });
  const latest = history.latestRequestContext();
  return createCheckpointState({
    conversationId,
    history,
    turns,
    ...(latest === undefined ? {} : { latestRequestContextId: latest.id }),
  });
}

/** The states after each turn of a built history, from one log grown by appends. */
export function* growingStates(built: BuiltHistory): Generator<CheckpointState> {
  const offset = built.epoch > 0 ? 1 : 0;
  const history = new HistoryLog({ epoch: built.epoch, messages: built.messages.slice(0, offset) });
  let end = offset;
  for (let turn = 1; turn <= built.turns.length; turn += 1) {
    const start = end;
    end += built.turns[turn - 1]!.messageIds.length;
    history.append(built.messages.slice(start, end));
    const latest = history.latestRequestContext();
    yield createCheckpointState({
      conversationId,
      history,
      turns: built.turns.slice(0, turn),
      ...(latest === undefined ? {} : { latestRequestContextId: latest.id }),
    });
  }
}
