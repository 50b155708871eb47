import { fromBinary } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { ConnectError } from "../connect/connect-error.js";
import { ModelDetailsSchema } from "../gen/agent_v1_pb.js";
import { AvailableModelsResponse_AvailableModelSchema } from "../gen/aiserver_v1_pb.js";
import type { WireModel } from "../ports.js";
import { availableModelsAdditions, usableModelsReply } from "./model-lists.js";

/** `AvailableModelsResponse`: model_names = 1 (string), models = 2 (AvailableModel, name = 1). */
const available = { modelNames: 1, models: 2 } as const;
/** `GetUsableModelsResponse`: models = 1 (ModelDetails, model_id = 1). */
const usable = { models: 1 } as const;

interface RawField {
  readonly fieldNo: number;
  /** The whole field, tag and value, as it appeared. */
  readonly raw: Uint8Array;
  /** The value of a length-delimited field. */
  readonly value?: Uint8Array;
}

function topLevelFields(bytes: Uint8Array, what: string): RawField[] {
  const fields: RawField[] = [];
  const reader = new BinaryReader(bytes);
  try {
    while (reader.pos < reader.len) {
      const start = reader.pos;
      const [fieldNo, wireType] = reader.tag();
      if (fieldNo === 0) throw new Error("field number 0");
      let value: Uint8Array | undefined;
      if (wireType === WireType.LengthDelimited) value = reader.bytes();
      else reader.skip(wireType, fieldNo);
      fields.push({
        fieldNo,
        raw: bytes.subarray(start, reader.pos),
        ...(value === undefined ? {} : { value }),
      });
    }
  } catch (error) {
    throw new ConnectError({
      code: "invalid_argument",
      message: `${what} is not a protobuf message: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
  return fields;
}

const utf8 = new TextDecoder("utf-8", { fatal: false });

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * Cursor's own `AvailableModels` reply with the BYOK models added (for `cursor-gateway proxy`):
 * every field of Cursor's reply is kept byte for byte (its default models and feature settings
 * stay Cursor's) except a model entry or model name whose id is a BYOK model's, which the BYOK
 * entry replaces so the picker shows each id once; the BYOK entries follow, as further
 * occurrences of the repeated fields (protobuf concatenates repeated fields). Throws
 * `invalid_argument` when `cursor` is not a protobuf message.
 */
export function mergeAvailableModels({
  cursor,
  models,
}: {
  cursor: Uint8Array;
  models: readonly WireModel[];
}): Uint8Array {
  const ids = new Set(models.map((model) => model.id));
  const kept = topLevelFields(cursor, "Cursor's AvailableModels reply").filter((field) => {
    if (field.value === undefined) return true;
    if (field.fieldNo === available.modelNames) return !ids.has(utf8.decode(field.value));
    if (field.fieldNo === available.models) return !ids.has(entryId(field.value, "available"));
    return true;
  });
  return concat([...kept.map((field) => field.raw), availableModelsAdditions(models)]);
}

/** The same for `GetUsableModels` (`ModelDetails` entries). */
export function mergeUsableModels({
  cursor,
  models,
}: {
  cursor: Uint8Array;
  models: readonly WireModel[];
}): Uint8Array {
  const ids = new Set(models.map((model) => model.id));
  const kept = topLevelFields(cursor, "Cursor's GetUsableModels reply").filter(
    (field) =>
      field.value === undefined ||
      field.fieldNo !== usable.models ||
      !ids.has(entryId(field.value, "usable")),
  );
  return concat([...kept.map((field) => field.raw), usableModelsReply(models)]);
}

/** The id of one model entry; "" when it does not decode (such an entry is kept as it is). */
function entryId(value: Uint8Array, list: "available" | "usable"): string {
  try {
    return list === "available"
      ? fromBinary(AvailableModelsResponse_AvailableModelSchema, value).name
      : fromBinary(ModelDetailsSchema, value).modelId;
  } catch {
    return "";
  }
}
