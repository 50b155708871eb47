import { ConnectError } from "../connect/connect-error.js";
import type { ModelDetails, RequestedModel } from "../gen/agent_v1_pb.js";
import type { WireModel } from "../ports.js";

/** Ids that mean "whatever the default is" (facts §6.3). */
const defaultModelIds = new Set(["", "default", "auto"]);

/** Is `id` one of the ids that pick the first configured model (empty, `default`, `auto`)? */
export function isDefaultModelId(id: string): boolean {
  return defaultModelIds.has(id.trim().toLowerCase());
}

/**
 * The model id the run request asks for: `requested_model.model_id` (preferred), else
 * `model_details.model_id`, else "". A variant string (`<id>:<effort>`, flagged by
 * `is_variant_string_representation`) is cut at the first ':'.
 */
export function requestedModelId({
  requestedModel,
  modelDetails,
}: {
  requestedModel: RequestedModel | undefined;
  modelDetails: ModelDetails | undefined;
}): string {
  const requested = requestedModel?.modelId ?? "";
  if (requested !== "") {
    if (requestedModel?.isVariantStringRepresentation === true) {
      const colon = requested.indexOf(":");
      return colon === -1 ? requested : requested.slice(0, colon);
    }
    return requested;
  }
  return modelDetails?.modelId ?? "";
}

/**
 * The configured model a run uses: an empty, `default` or `auto` id picks the first; any other id
 * must be a configured one, else the run ends with `not_found` and `BAD_MODEL_NAME` (facts §7.5).
 */
export function resolveModel({
  modelId,
  models,
}: {
  modelId: string;
  models: readonly WireModel[];
}): WireModel {
  if (isDefaultModelId(modelId)) {
    const first = models[0];
    if (first === undefined) {
      throw new ConnectError({
        code: "failed_precondition",
        message: "no model is configured",
        detail: {
          kind: "custom-message",
          title: "No model configured",
          detail: "Configure at least one BYOK model for the gateway.",
          retryable: false,
        },
      });
    }
    return first;
  }
  const model = models.find((candidate) => candidate.id === modelId);
  if (model === undefined) {
    throw new ConnectError({
      code: "not_found",
      message: `unknown model id ${modelId}`,
      detail: {
        kind: "bad-model-name",
        title: "AI Model Not Found",
        detail: `Unknown model ID: ${modelId}`,
        retryable: false,
        expected: true,
      },
    });
  }
  return model;
}
