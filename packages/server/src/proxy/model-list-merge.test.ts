import { describe, expect, it } from "vitest";
import {
  availableModelsResponse,
  modelIds,
  topLevelFields,
  usableModelsResponse,
} from "./e2e/cursor-messages.js";
import { ModelListMergeError, appendingModelListMerger } from "./model-list-merge.js";

describe("appendingModelListMerger", () => {
  it("keeps Cursor's reply byte for byte and appends only the gateway's model entries", () => {
    const cursor = availableModelsResponse({
      models: [
        { name: "claude-4.5-sonnet", displayName: "Sonnet 4.5" },
        { name: "gpt-5", displayName: "GPT-5" },
      ],
      useModelParameters: true,
    });
    const gateway = availableModelsResponse({
      models: [{ name: "byok-gpt-5", displayName: "GPT-5 (my key)" }],
      useModelParameters: false,
    });
    const merged = appendingModelListMerger.availableModels({ cursor, gateway });
    expect(Buffer.from(merged.subarray(0, cursor.length)).equals(Buffer.from(cursor))).toBe(true);
    expect(modelIds(merged, 2)).toEqual(["claude-4.5-sonnet", "gpt-5", "byok-gpt-5"]);
    // the gateway's own top-level settings never override Cursor's
    expect(topLevelFields(merged).filter(([no]) => no === 11)).toEqual([[11, 1n]]);
  });

  it("replaces a Cursor entry that has the id of a gateway model", () => {
    const cursor = availableModelsResponse({
      models: [
        { name: "a", displayName: "A" },
        { name: "shared", displayName: "Cursor's" },
      ],
    });
    const gateway = availableModelsResponse({ models: [{ name: "shared", displayName: "mine" }] });
    const merged = appendingModelListMerger.availableModels({ cursor, gateway });
    expect(modelIds(merged, 2)).toEqual(["a", "shared"]);
    expect(Buffer.from(merged).includes("Cursor's")).toBe(false);
  });

  it("merges GetUsableModels entries (field 1)", () => {
    const merged = appendingModelListMerger.usableModels({
      cursor: usableModelsResponse([{ id: "gpt-5", displayName: "GPT-5" }]),
      gateway: usableModelsResponse([{ id: "byok-claude", displayName: "Claude (my key)" }]),
    });
    expect(modelIds(merged, 1)).toEqual(["gpt-5", "byok-claude"]);
  });

  it("an empty gateway list leaves Cursor's reply as it is", () => {
    const cursor = availableModelsResponse({ models: [{ name: "gpt-5", displayName: "GPT-5" }] });
    const merged = appendingModelListMerger.availableModels({ cursor, gateway: new Uint8Array() });
    expect(Buffer.from(merged).equals(Buffer.from(cursor))).toBe(true);
  });

  it("refuses bytes that are not a protobuf message", () => {
    expect(() =>
      appendingModelListMerger.availableModels({
        cursor: Buffer.from("<html>oops</html>"),
        gateway: new Uint8Array(),
      }),
    ).toThrow(ModelListMergeError);
  });
});
