import { CursorError } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { CheckpointError, checkpointErrorReasons } from "./checkpoint-error.js";

describe("CheckpointError", () => {
  it("is a CursorError with a stable name, a reason and the blob it is about", () => {
    const cause = new Error("inner");
    const error = new CheckpointError({
      reason: "blob-mismatch",
      message: "blob x does not hash to its id",
      objectId: "x",
      cause,
    });
    expect(error).toBeInstanceOf(CursorError);
    expect(error.name).toBe("CheckpointError");
    expect(error.reason).toBe("blob-mismatch");
    expect(error.objectId).toBe("x");
    expect(error.cause).toBe(cause);
    expect(error.message).toBe("blob x does not hash to its id");
  });

  it("is recognised through its Symbol.for marker, also across package copies", () => {
    const error = new CheckpointError({ reason: "bad-mac", message: "m" });
    expect(CheckpointError.isInstance(error)).toBe(true);
    expect(CursorError.isInstance(error)).toBe(true);
    expect(CheckpointError.isInstance(new Error("m"))).toBe(false);
    expect(CheckpointError.isInstance(undefined)).toBe(false);
    const fromAnotherCopy = { [Symbol.for("cursor.error.checkpoint")]: true };
    expect(CheckpointError.isInstance(fromAnotherCopy)).toBe(true);
  });

  it("has one precise reason per failure kind", () => {
    expect(checkpointErrorReasons).toEqual([
      "malformed",
      "truncated",
      "bad-mac",
      "unknown-version",
      "too-large",
      "blob-mismatch",
      "manifest-mismatch",
      "head-mismatch",
      "missing-blob",
      "invalid-history",
      "invalid-state",
      "invalid-secret",
      "foreign-conversation",
      "incomplete",
    ]);
  });
});
