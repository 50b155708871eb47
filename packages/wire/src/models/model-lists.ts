import { create, toBinary } from "@bufbuild/protobuf";
import {
  GetUsableModelsResponseSchema,
  ModelDetailsSchema,
  ThinkingDetailsSchema,
} from "../gen/agent_v1_pb.js";
import {
  AvailableModelsResponse_AvailableModelSchema,
  AvailableModelsResponse_FeatureModelConfigSchema,
  AvailableModelsResponse_TooltipDataSchema,
  AvailableModelsResponseSchema,
} from "../gen/aiserver_v1_pb.js";
import type { WireModel } from "../ports.js";
import { defaultContextWindowTokens } from "../turn/checkpoint-publisher.js";

function availableModel(model: WireModel) {
  return create(AvailableModelsResponse_AvailableModelSchema, {
    name: model.id,
    serverModelName: model.id,
    clientDisplayName: model.displayName,
    inputboxShortModelName: model.displayName,
    defaultOn: true,
    supportsAgent: true,
    supportsPlanMode: true,
    supportsThinking: true,
    supportsImages: true,
    supportsMaxMode: false,
    supportsNonMaxMode: true,
    contextTokenLimit: Math.min(
      0x7fffffff,
      model.contextWindowTokens ?? defaultContextWindowTokens,
    ),
    tooltipData: create(AvailableModelsResponse_TooltipDataSchema, {
      primaryText: model.displayName,
      secondaryText: model.provider === undefined ? "BYOK" : `BYOK · ${model.provider}`,
      markdownContent: `**${model.displayName}** on your own ${model.provider ?? "provider"} key, through the local gateway.`,
    }),
  });
}

/**
 * The `aiserver.v1.AiService/AvailableModels` reply (facts §6.4): one entry per configured
 * model, the first as the default of every feature.
 */
export function availableModelsReply(models: readonly WireModel[]): Uint8Array {
  const ids = models.map((model) => model.id);
  const feature = () =>
    create(AvailableModelsResponse_FeatureModelConfigSchema, {
      defaultModel: ids[0] ?? "",
      fallbackModels: ids,
    });
  return toBinary(
    AvailableModelsResponseSchema,
    create(AvailableModelsResponseSchema, {
      modelNames: ids,
      models: models.map(availableModel),
      composerModelConfig: feature(),
      cmdKModelConfig: feature(),
      backgroundComposerModelConfig: feature(),
      planExecutionModelConfig: feature(),
      specModelConfig: feature(),
      deepSearchModelConfig: feature(),
      quickAgentModelConfig: feature(),
    }),
  );
}

/**
 * Only the model entries of an `AvailableModels` reply: protobuf merges repeated fields by
 * concatenation, so a proxy appends these bytes to Cursor's own reply to add the BYOK models
 * without touching Cursor's defaults.
 */
export function availableModelsAdditions(models: readonly WireModel[]): Uint8Array {
  return toBinary(
    AvailableModelsResponseSchema,
    create(AvailableModelsResponseSchema, {
      modelNames: models.map((model) => model.id),
      models: models.map(availableModel),
    }),
  );
}

/** The `GetUsableModels` reply (facts §6.5): the same models as `ModelDetails`. */
export function usableModelsReply(models: readonly WireModel[]): Uint8Array {
  return toBinary(
    GetUsableModelsResponseSchema,
    create(GetUsableModelsResponseSchema, {
      models: models.map((model) =>
        create(ModelDetailsSchema, {
          modelId: model.id,
          displayModelId: model.id,
          displayName: model.displayName,
          displayNameShort: model.displayName,
          thinkingDetails: create(ThinkingDetailsSchema, {}),
        }),
      ),
    }),
  );
}
