import { expect } from "vitest";
import { CheckpointError } from "../checkpoint-error.js";
import type { CheckpointErrorReason } from "../checkpoint-error.js";

/** Runs `action` and returns the CheckpointError it throws, failing the test otherwise. */
export function catchCheckpointError(action: () => unknown): CheckpointError {
  try {
    action();
  } catch (error) {
    if (CheckpointError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a CheckpointError, nothing was thrown");
}

export async function catchCheckpointErrorAsync(
  action: () => Promise<unknown>,
): Promise<CheckpointError> {
  try {
    await action();
  } catch (error) {
    if (CheckpointError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a CheckpointError, nothing was thrown");
}

export function expectReason(action: () => unknown, reason: CheckpointErrorReason): void {
  expect(catchCheckpointError(action).reason).toBe(reason);
}

export async function expectReasonAsync(
  action: () => Promise<unknown>,
  reason: CheckpointErrorReason,
): Promise<void> {
  expect((await catchCheckpointErrorAsync(action)).reason).toBe(reason);
}
