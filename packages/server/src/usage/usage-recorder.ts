import { randomBytes } from "node:crypto";
import { RunCallRecorder } from "./run-call-recorder.js";
import type { UsageRecorderContext } from "./usage-recorder-context.js";

/**
 * The service's usage recorder: one per gateway process, handing each run execution a
 * `RunCallRecorder` for its provider calls (both front doors run through it).
 */
export class UsageRecorder {
  readonly context: UsageRecorderContext;

  constructor(
    context: Omit<UsageRecorderContext, "process"> & { process?: UsageRecorderContext["process"] },
  ) {
    this.context = {
      ...context,
      process: context.process ?? {
        id: randomBytes(6).toString("hex"),
        startedAt: context.now().getTime(),
      },
    };
  }

  forRun(input: {
    tenant: string;
    conversationId: string;
    runId: string;
    provider: string;
    catalogModel: string;
    acceptedAt: number;
  }): RunCallRecorder {
    return new RunCallRecorder({ context: this.context, ...input });
  }
}

export type { UsageRecorderContext } from "./usage-recorder-context.js";
