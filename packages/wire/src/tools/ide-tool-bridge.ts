import { systemTimers } from "../session/wire-timers.js";
import type { WireTimers } from "../session/wire-timers.js";
import type {
  ToolBridge,
  ToolBridgeFactory,
  ToolBridgeSession,
  ToolRoundCall,
  ToolRoundResult,
} from "../turn/tool-bridge.js";
import { ExecChannel } from "./exec-channel.js";
import { runToolCall } from "./tool-runners.js";

/** Conversations whose settled calls are remembered in-process for a resumed round. */
const maxRememberedConversations = 1000;

/**
 * Results of calls that settled, per conversation, for as long as their round is open: a round
 * resumed on a live gateway (a new run stream, the old one cancelled) takes them from here even
 * when the client's latest checkpoint missed them. A restarted gateway has the checkpoint's.
 */
class SettledCalls {
  readonly #byConversation = new Map<string, Map<string, ToolRoundResult>>();

  /** Keeps only the entries of this round's calls; returns the conversation's map. */
  retain(conversationId: string, callIds: readonly string[]): Map<string, ToolRoundResult> {
    const previous = this.#byConversation.get(conversationId);
    const kept = new Map<string, ToolRoundResult>();
    for (const id of callIds) {
      const entry = previous?.get(id);
      if (entry !== undefined) kept.set(id, entry);
    }
    this.#byConversation.delete(conversationId);
    this.#byConversation.set(conversationId, kept);
    while (this.#byConversation.size > maxRememberedConversations) {
      const oldest = this.#byConversation.keys().next().value;
      if (oldest === undefined) break;
      this.#byConversation.delete(oldest);
    }
    return kept;
  }
}

/** File tools whose calls on one path run in the model's order; the rest only read. */
const pathTools: Readonly<Record<string, "read" | "write">> = Object.freeze({
  read_file: "read",
  write_file: "write",
  edit_file: "write",
  delete_file: "write",
});

function pathOf(call: ToolRoundCall): string | undefined {
  try {
    const value: unknown = JSON.parse(call.arguments);
    const path = (value as { path?: unknown } | null)?.path;
    return typeof path === "string" ? path : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Orders the calls of one round: calls on one path (read, write, edit, delete) run in the
 * model's order where one of them writes (reads of a path run together), shell commands run one
 * after another, everything else runs at once.
 */
class RoundScheduler {
  readonly #lastWrite = new Map<string, Promise<unknown>>();
  readonly #sinceWrite = new Map<string, Promise<unknown>[]>();

  schedule<T>(key: string | undefined, kind: "read" | "write", task: () => Promise<T>): Promise<T> {
    if (key === undefined) return task();
    const lastWrite = this.#lastWrite.get(key) ?? Promise.resolve();
    const readers = this.#sinceWrite.get(key) ?? [];
    const after = kind === "write" ? Promise.all([lastWrite, ...readers]) : lastWrite;
    const run = after.then(task, task);
    if (kind === "write") {
      this.#lastWrite.set(
        key,
        run.catch(() => undefined),
      );
      this.#sinceWrite.set(key, []);
    } else {
      readers.push(run.catch(() => undefined));
      this.#sinceWrite.set(key, readers);
    }
    return run;
  }
}

class IdeToolBridge implements ToolBridge {
  readonly #session: ToolBridgeSession;
  readonly #channel: ExecChannel;
  readonly #settledCalls: SettledCalls;

  constructor({
    session,
    timers,
    settledCalls,
  }: {
    session: ToolBridgeSession;
    timers: WireTimers;
    settledCalls: SettledCalls;
  }) {
    this.#session = session;
    this.#settledCalls = settledCalls;
    this.#channel = new ExecChannel({
      send: (message) => session.send(message),
      nextId: () => session.nextExecId(),
      lastId: () => session.lastExecId(),
      timers,
      signal: session.signal,
    });
  }

  async runRound(calls: readonly ToolRoundCall[]): Promise<readonly ToolRoundResult[]> {
    const session = this.#session;
    const remembered = this.#settledCalls.retain(
      session.conversationId,
      calls.map((call) => call.callId),
    );
    const scheduler = new RoundScheduler();
    const context = {
      channel: this.#channel,
      send: (message: Parameters<ToolBridgeSession["send"]>[0]) => session.send(message),
      todos: session.todos,
      mcpTools: session.mcpTools,
    };
    const results = calls.map(async (call): Promise<ToolRoundResult> => {
      const earlier = call.settled ?? remembered.get(call.callId);
      if (earlier !== undefined) {
        return { callId: call.callId, output: earlier.output, isError: earlier.isError };
      }
      const kind = pathTools[call.name];
      const key =
        call.name === "shell" ? "shell" : kind === undefined ? undefined : `path:${pathOf(call)}`;
      const outcome = await scheduler.schedule(key, kind ?? "write", async () => {
        try {
          return await runToolCall(call, context);
        } catch (error) {
          // A bug here must not take the run down: the model learns the call failed.
          return {
            output: `${call.name} failed inside the gateway: ${error instanceof Error ? error.message : String(error)}.`,
            isError: true,
          };
        }
      });
      const result: ToolRoundResult = {
        callId: call.callId,
        output: outcome.output,
        isError: outcome.isError,
        ...(outcome.display === undefined ? {} : { display: outcome.display }),
      };
      if (!session.signal.aborted) {
        remembered.set(call.callId, result);
        session.settled(result);
      }
      return result;
    });
    return Promise.all(results);
  }

  deliver(message: Parameters<ToolBridge["deliver"]>[0]): void {
    switch (message.case) {
      case "exec":
        this.#channel.deliverExec(message.value);
        return;
      case "execControl":
        this.#channel.deliverControl(message.value);
        return;
      case "interactionResponse":
        this.#channel.deliverResponse(message.value);
        return;
      default: {
        const exhaustive: never = message;
        throw new Error(`unknown client result ${JSON.stringify(exhaustive)}`);
      }
    }
  }
}

/**
 * The tool bridge that runs the model's tools in the user's IDE (cursor-wire.md, Tool bridge):
 * each call becomes its `exec_server_message` (or `interaction_query`), the IDE's answer becomes
 * the deterministic tool-result text the model reads and the completed `ToolCall` the IDE shows.
 * `todo_write` is kept by the gateway; `web_search`, `web_fetch` and `run_subagent` answer with
 * a clear "not available" error result.
 */
export function createIdeToolBridge({
  timers = systemTimers,
}: { timers?: WireTimers } = {}): ToolBridgeFactory {
  const settledCalls = new SettledCalls();
  return (session) => new IdeToolBridge({ session, timers, settledCalls });
}
