import { fromBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { testModels } from "../__fixtures__/wire-models.js";
import { GetUsableModelsResponseSchema } from "../gen/agent_v1_pb.js";
import { AvailableModelsResponseSchema } from "../gen/aiserver_v1_pb.js";
import {
  availableModelsAdditions,
  availableModelsReply,
  usableModelsReply,
} from "./model-lists.js";

describe("model lists", () => {
  it("AvailableModels lists every configured model, the first as every feature's default", () => {
    const reply = fromBinary(AvailableModelsResponseSchema, availableModelsReply(testModels));
    expect(reply.modelNames).toEqual(["byok-gpt", "byok-claude"]);
    expect(
      reply.models.map((model) => [model.name, model.clientDisplayName, model.serverModelName]),
    ).toEqual([
      ["byok-gpt", "GPT (BYOK)", "byok-gpt"],
      ["byok-claude", "Claude (BYOK)", "byok-claude"],
    ]);
    expect(reply.models[0]).toMatchObject({
      defaultOn: true,
      supportsAgent: true,
      contextTokenLimit: 400_000,
    });
    expect(reply.models[1]!.contextTokenLimit).toBe(200_000);
    expect(reply.composerModelConfig).toMatchObject({
      defaultModel: "byok-gpt",
      fallbackModels: ["byok-gpt", "byok-claude"],
    });
  });

  it("the additions merge into another reply without touching its defaults", () => {
    const upstream = availableModelsReply([{ id: "cursor-small", displayName: "Cursor Small" }]);
    const merged = fromBinary(
      AvailableModelsResponseSchema,
      new Uint8Array([...upstream, ...availableModelsAdditions(testModels)]),
    );
    expect(merged.models.map((model) => model.name)).toEqual([
      "cursor-small",
      "byok-gpt",
      "byok-claude",
    ]);
    expect(merged.composerModelConfig?.defaultModel).toBe("cursor-small");
  });

  it("GetUsableModels returns the same models as ModelDetails", () => {
    const reply = fromBinary(GetUsableModelsResponseSchema, usableModelsReply(testModels));
    expect(reply.models.map((model) => [model.modelId, model.displayName])).toEqual([
      ["byok-gpt", "GPT (BYOK)"],
      ["byok-claude", "Claude (BYOK)"],
    ]);
  });
});
