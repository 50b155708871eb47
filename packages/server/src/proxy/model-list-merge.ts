/**
 * TO BE REPLACED BY @cursor/wire AT INTEGRATION.
 *
 * The interim `ModelListMerger` (wire-ports.ts): Cursor's model-list reply, kept byte for byte,
 * with the gateway's entries appended as further occurrences of the repeated field (protobuf
 * merges repeated fields by concatenation, cursor-wire-facts.md §6.5). Only the gateway's model
 * entries are taken: its top-level settings (default model, feature configs) never override
 * Cursor's. Field numbers: `AvailableModelsResponse.models` = 2 with `AvailableModel.name` = 1,
 * `GetUsableModelsResponse.models` = 1 with `ModelDetails.model_id` = 1.
 */
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { CursorError } from "@cursor/run";
import type { ModelListMerger } from "./wire-ports.js";

interface RawField {
  readonly fieldNo: number;
  /** The whole field (tag and value) as it appeared. */
  readonly raw: Uint8Array;
  /** The value of a length-delimited field. */
  readonly value?: Uint8Array;
}

const modelListMergeErrorMarker = Symbol.for("cursor.error.model-list-merge");
/** A model-list reply that is not the protobuf message it should be; nothing is merged. */
export class ModelListMergeError extends CursorError {
  readonly [modelListMergeErrorMarker] = true;
  constructor({ message }: { message: string }) {
    super({ name: "ModelListMergeError", message });
  }
  static override isInstance(error: unknown): error is ModelListMergeError {
    return typeof error === "object" && error !== null && modelListMergeErrorMarker in error;
  }
}

function rawFields(bytes: Uint8Array, what: string): RawField[] {
  const fields: RawField[] = [];
  const reader = new BinaryReader(bytes);
  try {
    while (reader.pos < reader.len) {
      const start = reader.pos;
      const [fieldNo, wireType] = reader.tag();
      if (fieldNo === 0) throw new Error("field number 0");
      const value = wireType === WireType.LengthDelimited ? reader.bytes() : undefined;
      if (value === undefined) reader.skip(wireType, fieldNo);
      fields.push({
        fieldNo,
        raw: bytes.subarray(start, reader.pos),
        ...(value === undefined ? {} : { value }),
      });
    }
  } catch (error) {
    throw new ModelListMergeError({
      message: `${what} is not a protobuf message: ${(error as Error).message}`,
    });
  }
  return fields;
}

/** Field 1 of a model entry as text (`name` / `model_id`); undefined when absent. */
function entryId(entry: Uint8Array): string | undefined {
  let id: string | undefined;
  try {
    const reader = new BinaryReader(entry);
    while (reader.pos < reader.len) {
      const [fieldNo, wireType] = reader.tag();
      if (fieldNo === 1 && wireType === WireType.LengthDelimited) id = reader.string();
      else reader.skip(wireType, fieldNo);
    }
  } catch {
    return undefined;
  }
  return id;
}

function mergeRepeated({
  cursor,
  gateway,
  fieldNo,
}: {
  cursor: Uint8Array;
  gateway: Uint8Array;
  fieldNo: number;
}): Uint8Array {
  const added = rawFields(gateway, "the gateway's model list").filter(
    (field) => field.fieldNo === fieldNo && field.value !== undefined,
  );
  const addedIds = new Set(
    added.map((field) => entryId(field.value!)).filter((id): id is string => id !== undefined),
  );
  const kept = rawFields(cursor, "Cursor's model list").filter((field) => {
    if (field.fieldNo !== fieldNo || field.value === undefined) return true;
    const id = entryId(field.value);
    return id === undefined || !addedIds.has(id);
  });
  return Buffer.concat([...kept, ...added].map((field) => field.raw));
}

export const appendingModelListMerger: ModelListMerger = {
  availableModels: ({ cursor, gateway }) => mergeRepeated({ cursor, gateway, fieldNo: 2 }),
  usableModels: ({ cursor, gateway }) => mergeRepeated({ cursor, gateway, fieldNo: 1 }),
};
