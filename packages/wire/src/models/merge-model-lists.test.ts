import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import { describe, expect, it } from "vitest";
import { testModels } from "../__fixtures__/wire-models.js";
import { GetUsableModelsResponseSchema, ModelDetailsSchema } from "../gen/agent_v1_pb.js";
import { AvailableModelsResponseSchema } from "../gen/aiserver_v1_pb.js";
import { mergeAvailableModels, mergeUsableModels } from "./merge-model-lists.js";
import { availableModelsReply } from "./model-lists.js";

describe("merging the BYOK models into Cursor's own lists", () => {
  it("keeps Cursor's reply byte for byte, replaces an entry with a BYOK id, appends the BYOK entries", () => {
    const cursor = new Uint8Array([
      ...availableModelsReply([
        { id: "claude-4.5-sonnet", displayName: "Sonnet 4.5" },
        { id: "byok-gpt", displayName: "Cursor's own entry of that id" },
      ]),
      // A field of a newer schema (99 = "x"): Cursor's, kept.
      ...new BinaryWriter().tag(99, 2).string("x").finish(),
    ]);
    const merged = mergeAvailableModels({ cursor, models: testModels });
    const reply = fromBinary(AvailableModelsResponseSchema, merged);
    expect(reply.models.map((model) => [model.name, model.clientDisplayName])).toEqual([
      ["claude-4.5-sonnet", "Sonnet 4.5"],
      ["byok-gpt", "GPT (BYOK)"],
      ["byok-claude", "Claude (BYOK)"],
    ]);
    expect(reply.modelNames).toEqual(["claude-4.5-sonnet", "byok-gpt", "byok-claude"]);
    // Cursor's defaults stay Cursor's, and so does what this gateway does not know.
    expect(reply.composerModelConfig?.defaultModel).toBe("claude-4.5-sonnet");
    expect(Buffer.from(merged).includes(Buffer.from([0x9a, 0x06, 1, 0x78]))).toBe(true);
  });

  it("does the same for GetUsableModels", () => {
    const cursor = toBinary(
      GetUsableModelsResponseSchema,
      create(GetUsableModelsResponseSchema, {
        models: [
          create(ModelDetailsSchema, { modelId: "gpt-5", displayName: "GPT-5" }),
          create(ModelDetailsSchema, { modelId: "byok-claude", displayName: "theirs" }),
        ],
      }),
    );
    const reply = fromBinary(
      GetUsableModelsResponseSchema,
      mergeUsableModels({ cursor, models: testModels }),
    );
    expect(reply.models.map((model) => [model.modelId, model.displayName])).toEqual([
      ["gpt-5", "GPT-5"],
      ["byok-gpt", "GPT (BYOK)"],
      ["byok-claude", "Claude (BYOK)"],
    ]);
  });

  it("refuses bytes that are not a protobuf message", () => {
    expect(() =>
      mergeAvailableModels({ cursor: new Uint8Array([0x0a, 0x09]), models: testModels }),
    ).toThrow(/not a protobuf message/);
  });
});
