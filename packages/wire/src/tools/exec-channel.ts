import { create } from "@bufbuild/protobuf";
import { ConnectError } from "../connect/connect-error.js";
import type {
  AgentServerMessage,
  ExecClientControlMessage,
  ExecClientMessage,
  ExecServerMessage,
  InteractionQuery,
  InteractionResponse,
  ShellStream,
} from "../gen/agent_v1_pb.js";
import {
  AgentServerMessageSchema,
  ExecServerAbortSchema,
  ExecServerControlMessageSchema,
  ExecServerMessageSchema,
  InteractionQuerySchema,
} from "../gen/agent_v1_pb.js";
import type { TimerHandle, WireTimers } from "../session/wire-timers.js";

/** The exec request kinds the bridge sends (the `ExecServerMessage.message` cases). */
export type ExecRequest = Exclude<ExecServerMessage["message"], { case: undefined }>;
type ExecReply = ExecClientMessage["message"];

/** How one exec ended: the client's result, or a failure the model is told about. */
export type ExecOutcome =
  | { readonly kind: "result"; readonly result: Exclude<ExecReply, { case: undefined }> }
  | { readonly kind: "failure"; readonly reason: string };

export type QueryOutcome =
  | {
      readonly kind: "response";
      readonly response: Exclude<InteractionResponse["result"], { case: undefined }>;
    }
  | { readonly kind: "failure"; readonly reason: string };

/** The result case that answers each request case (facts §5.1; shell streams as `shell_stream`). */
const answerCase: Readonly<Record<ExecRequest["case"], readonly string[]>> = Object.freeze({
  writeArgs: ["writeResult"],
  deleteArgs: ["deleteResult"],
  grepArgs: ["grepResult"],
  readArgs: ["readResult"],
  lsArgs: ["lsResult"],
  diagnosticsArgs: ["diagnosticsResult"],
  mcpArgs: ["mcpResult"],
  shellStreamArgs: ["shellStream", "shellResult"],
});

const execKind: Readonly<Record<ExecRequest["case"], string>> = Object.freeze({
  writeArgs: "write",
  deleteArgs: "delete",
  grepArgs: "grep",
  readArgs: "read",
  lsArgs: "ls",
  diagnosticsArgs: "diagnostics",
  mcpArgs: "mcp",
  shellStreamArgs: "shell",
});

/** After a `stream_close` without a result, the exec fails this much later (facts §5.2). */
export const streamCloseGraceMs = 1500;

interface PendingExec {
  readonly id: number;
  readonly execId: string;
  readonly request: ExecRequest;
  /** Shell events before the terminal one; returns true when the event ends the exec. */
  readonly onStream: ((event: ShellStream["event"]) => boolean) | undefined;
  readonly settle: (outcome: ExecOutcome) => void;
  closeTimer: TimerHandle | undefined;
}

interface PendingQuery {
  readonly id: number;
  readonly expected: string;
  readonly settle: (outcome: QueryOutcome) => void;
}

/**
 * The exec and interaction-query traffic of one run stream: sends each request with an id unique
 * in the stream, matches the client's answers on `id` and `exec_id`, and settles each request
 * exactly once. A result for nothing pending (unknown, duplicated, already settled) is refused
 * with a `ConnectError` (the append that carried it fails) and changes nothing; a result of the
 * wrong kind or with no content settles the exec as a failure, so the round goes on. On abort,
 * every pending exec gets `exec_server_control_message.abort`.
 */
export class ExecChannel {
  readonly #send: (message: AgentServerMessage) => void;
  readonly #nextId: () => number;
  readonly #lastId: () => number;
  readonly #timers: WireTimers;
  readonly #execs = new Map<number, PendingExec>();
  readonly #queries = new Map<number, PendingQuery>();
  #aborted: string | undefined;

  constructor({
    send,
    nextId,
    lastId,
    timers,
    signal,
  }: {
    send: (message: AgentServerMessage) => void;
    nextId: () => number;
    /** The highest id issued in the stream so far (by this round or an earlier one). */
    lastId: () => number;
    timers: WireTimers;
    signal: AbortSignal;
  }) {
    this.#send = send;
    this.#nextId = nextId;
    this.#lastId = lastId;
    this.#timers = timers;
    if (signal.aborted) this.#abortAll(signal.reason);
    else signal.addEventListener("abort", () => this.#abortAll(signal.reason), { once: true });
  }

  get pendingCount(): number {
    return this.#execs.size + this.#queries.size;
  }

  exec(
    request: ExecRequest,
    onStream?: (event: ShellStream["event"]) => boolean,
  ): Promise<ExecOutcome> {
    if (this.#aborted !== undefined) {
      return Promise.resolve({ kind: "failure", reason: this.#aborted });
    }
    const id = this.#nextId();
    const execId = `exec-${execKind[request.case]}-${id}`;
    return new Promise<ExecOutcome>((resolve) => {
      const pending: PendingExec = {
        id,
        execId,
        request,
        onStream,
        closeTimer: undefined,
        settle: (outcome) => {
          if (this.#execs.get(id) !== pending) return;
          this.#execs.delete(id);
          if (pending.closeTimer !== undefined) this.#timers.clearTimeout(pending.closeTimer);
          resolve(outcome);
        },
      };
      this.#execs.set(id, pending);
      this.#send(
        create(AgentServerMessageSchema, {
          message: {
            case: "execServerMessage",
            value: create(ExecServerMessageSchema, { id, execId, message: request }),
          },
        }),
      );
    });
  }

  query(
    query: Exclude<InteractionQuery["query"], { case: undefined }>,
    expected: Exclude<InteractionResponse["result"]["case"], undefined>,
  ): Promise<QueryOutcome> {
    if (this.#aborted !== undefined) {
      return Promise.resolve({ kind: "failure", reason: this.#aborted });
    }
    const id = this.#nextId();
    return new Promise<QueryOutcome>((resolve) => {
      const pending: PendingQuery = {
        id,
        expected,
        settle: (outcome) => {
          if (this.#queries.get(id) !== pending) return;
          this.#queries.delete(id);
          resolve(outcome);
        },
      };
      this.#queries.set(id, pending);
      this.#send(
        create(AgentServerMessageSchema, {
          message: {
            case: "interactionQuery",
            value: create(InteractionQuerySchema, { id, query }),
          },
        }),
      );
    });
  }

  deliverExec(message: ExecClientMessage): void {
    const pending = this.#execs.get(message.id);
    if (pending === undefined || (message.execId !== "" && message.execId !== pending.execId)) {
      throw new ConnectError({
        code: "failed_precondition",
        message: `exec_client_message ${message.id} (exec_id ${message.execId || "none"}) answers no pending exec`,
      });
    }
    const result = message.message;
    if (result.case === undefined) {
      pending.settle({
        kind: "failure",
        reason: `the editor answered ${execKind[pending.request.case]} without a result`,
      });
      throw new ConnectError({
        code: "invalid_argument",
        message: `exec_client_message ${message.id} carries no result`,
      });
    }
    if (!answerCase[pending.request.case].includes(result.case)) {
      pending.settle({
        kind: "failure",
        reason: `the editor answered ${execKind[pending.request.case]} with a ${result.case}`,
      });
      throw new ConnectError({
        code: "invalid_argument",
        message: `exec_client_message ${message.id} answers a ${execKind[pending.request.case]} exec with ${result.case}`,
      });
    }
    if (result.case === "shellStream" && pending.onStream !== undefined) {
      if (pending.onStream(result.value.event)) pending.settle({ kind: "result", result });
      return;
    }
    pending.settle({ kind: "result", result });
  }

  deliverControl(message: ExecClientControlMessage): void {
    const control = message.message;
    if (control.case === undefined) {
      throw new ConnectError({
        code: "invalid_argument",
        message: "exec_client_control_message carries no control",
      });
    }
    const pending = this.#execs.get(control.value.id);
    if (pending === undefined) {
      // The IDE closes an exec's stream after its result (and may beat once more): an
      // acknowledgement for an exec of this stream that settled already needs no answer.
      const issued = control.value.id >= 1 && control.value.id <= this.#lastId();
      if (issued && (control.case === "streamClose" || control.case === "heartbeat")) return;
      throw new ConnectError({
        code: "failed_precondition",
        message: `exec_client_control_message ${control.case} ${control.value.id} answers no pending exec`,
      });
    }
    switch (control.case) {
      case "heartbeat":
        return;
      case "throw": {
        const text = control.value.error.trim();
        pending.settle({
          kind: "failure",
          reason: `the editor failed to run it${text === "" ? "" : `: ${text}`}`,
        });
        return;
      }
      case "streamClose":
        // An acknowledgement only; a result may still follow, briefly.
        if (pending.closeTimer !== undefined) return;
        pending.closeTimer = this.#timers.setTimeout(() => {
          pending.settle({
            kind: "failure",
            reason: "the editor closed the exec stream without a result",
          });
        }, streamCloseGraceMs);
        return;
      default: {
        const exhaustive: never = control;
        throw new Error(`unknown control ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  deliverResponse(message: InteractionResponse): void {
    const pending = this.#queries.get(message.id);
    if (pending === undefined) {
      throw new ConnectError({
        code: "failed_precondition",
        message: `interaction_response ${message.id} answers no pending interaction query`,
      });
    }
    const result = message.result;
    if (result.case === undefined || result.case !== pending.expected) {
      pending.settle({
        kind: "failure",
        reason: `the editor answered the question with ${result.case ?? "nothing"}`,
      });
      throw new ConnectError({
        code: "invalid_argument",
        message: `interaction_response ${message.id} carries ${result.case ?? "no result"}, expected ${pending.expected}`,
      });
    }
    pending.settle({ kind: "response", response: result });
  }

  #abortAll(reason: unknown): void {
    this.#aborted = reason instanceof Error ? reason.message : "the run was cancelled";
    const failure = { kind: "failure", reason: this.#aborted } as const;
    for (const pending of [...this.#execs.values()]) {
      this.#send(
        create(AgentServerMessageSchema, {
          message: {
            case: "execServerControlMessage",
            value: create(ExecServerControlMessageSchema, {
              message: { case: "abort", value: create(ExecServerAbortSchema, { id: pending.id }) },
            }),
          },
        }),
      );
      pending.settle(failure);
    }
    for (const pending of [...this.#queries.values()]) pending.settle(failure);
  }
}
