import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@cursor/checkpoint entry point", () => {
  it("names the package it is published as", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(api.packageName).toBe(manifest.name);
  });

  it("exports exactly its public API", () => {
    expect(Object.keys(api).sort()).toEqual([
      "CheckpointError",
      "MemoryBlobStore",
      "checkpointDeltaTokenVersion",
      "checkpointErrorReasons",
      "checkpointFormatVersion",
      "checkpointMetadataSchema",
      "checkpointRefSchema",
      "checkpointStateSchema",
      "checkpointTokenVersion",
      "checkpointTurnSchema",
      "createCheckpointEncodeCache",
      "createCheckpointState",
      "decodeCheckpoint",
      "decodeCheckpointChain",
      "defaultMaxCheckpointBytes",
      "encodeCheckpoint",
      "encodeCheckpointDelta",
      "hydrateCheckpoint",
      "inspectCheckpoint",
      "inspectCheckpointDelta",
      "minimumSecretBytes",
      "packageName",
      "readCheckpoint",
      "writeCheckpoint",
    ]);
    expect(api.checkpointFormatVersion).toBe(2);
    expect(api.checkpointTokenVersion).toBe(2);
    expect(api.defaultMaxCheckpointBytes).toBe(64 * 1024 * 1024);
    expect(api.minimumSecretBytes).toBe(16);
  });
});
