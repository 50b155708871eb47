import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";

/**
 * Encoders for the Cursor messages the proxy tests send, written from the field numbers of
 * cursor-wire-facts.md (§1.3, §2.1, §2.3, §6.1, §6.4) independently of the proxy's decoder, so a
 * wrong field number on either side fails a test.
 */

export function bidiRequestId(requestId: string): Uint8Array {
  return new BinaryWriter().tag(1, 2).string(requestId).finish();
}

/** One Connect envelope: flag byte, 4-byte big-endian length, payload. */
export function envelope(payload: Uint8Array, flags = 0): Uint8Array {
  const frame = Buffer.alloc(5 + payload.length);
  frame[0] = flags;
  frame.writeUInt32BE(payload.length, 1);
  frame.set(payload, 5);
  return frame;
}

export function endStreamFrame(json = "{}"): Uint8Array {
  return envelope(Buffer.from(json, "utf8"), 2);
}

export type ModelSelection =
  | { readonly requestedModel: string; readonly variant?: boolean }
  | { readonly modelDetails: string }
  | { readonly none: true };

/** `AgentClientMessage{run_request}` with a conversation id, an action and the model selection. */
export function runRequestMessage({
  conversationId,
  model,
  text = "hello",
}: {
  conversationId: string;
  model: ModelSelection;
  text?: string;
}): Uint8Array {
  const run = new BinaryWriter();
  // conversation_state = 1 (empty), action = 2 {user_message_action = 1 {user_message = 1 {text = 1}}}
  run.tag(1, 2).bytes(new Uint8Array());
  run
    .tag(2, 2)
    .fork()
    .tag(1, 2)
    .fork()
    .tag(1, 2)
    .fork()
    .tag(1, 2)
    .string(text)
    .join()
    .join()
    .join();
  if ("requestedModel" in model) {
    const requested = new BinaryWriter().tag(1, 2).string(model.requestedModel);
    if (model.variant === true) requested.tag(8, 0).bool(true);
    run.tag(9, 2).bytes(requested.finish());
  } else if ("modelDetails" in model) {
    run
      .tag(3, 2)
      .bytes(
        new BinaryWriter().tag(1, 2).string(model.modelDetails).tag(4, 2).string("x").finish(),
      );
  }
  run.tag(5, 2).string(conversationId);
  return new BinaryWriter().tag(1, 2).bytes(run.finish()).finish();
}

/** `AgentClientMessage{client_heartbeat}`. */
export function heartbeatMessage(): Uint8Array {
  return new BinaryWriter().tag(7, 2).bytes(new Uint8Array()).finish();
}

/** `AgentClientMessage{exec_client_message{id, exec_id, ...}}` with an opaque result payload. */
export function execResultMessage({
  id,
  payload,
}: {
  id: number;
  payload: Uint8Array;
}): Uint8Array {
  return new BinaryWriter()
    .tag(2, 2)
    .fork()
    .tag(1, 0)
    .uint32(id)
    .tag(15, 2)
    .string(`exec-read-${id}`)
    .tag(10, 2)
    .bytes(payload)
    .join()
    .finish();
}

export function bidiAppend({
  requestId,
  seqno,
  message,
}: {
  requestId: string;
  seqno: number;
  message: Uint8Array;
}): Uint8Array {
  return new BinaryWriter()
    .tag(1, 2)
    .string(Buffer.from(message).toString("hex"))
    .tag(2, 2)
    .bytes(bidiRequestId(requestId))
    .tag(3, 0)
    .int64(seqno)
    .finish();
}

/** `AvailableModelsResponse{models = 2 rep {name = 1, default_on = 2, client_display_name = 17}, use_model_parameters = 11}`. */
export function availableModelsResponse({
  models,
  useModelParameters,
}: {
  models: readonly { name: string; displayName: string }[];
  useModelParameters?: boolean;
}): Uint8Array {
  const writer = new BinaryWriter();
  for (const model of models) {
    writer
      .tag(2, 2)
      .fork()
      .tag(1, 2)
      .string(model.name)
      .tag(2, 0)
      .bool(true)
      .tag(17, 2)
      .string(model.displayName)
      .join();
  }
  if (useModelParameters !== undefined) writer.tag(11, 0).bool(useModelParameters);
  return writer.finish();
}

/** `GetUsableModelsResponse{models = 1 rep ModelDetails{model_id = 1, display_name = 4}}`. */
export function usableModelsResponse(
  models: readonly { id: string; displayName: string }[],
): Uint8Array {
  const writer = new BinaryWriter();
  for (const model of models) {
    writer.tag(1, 2).fork().tag(1, 2).string(model.id).tag(4, 2).string(model.displayName).join();
  }
  return writer.finish();
}

/** The top-level fields of a message as `[fieldNo, bytes or number]`, in order (for assertions). */
export function topLevelFields(bytes: Uint8Array): [number, Uint8Array | bigint][] {
  const reader = new BinaryReader(bytes);
  const fields: [number, Uint8Array | bigint][] = [];
  while (reader.pos < reader.len) {
    const [fieldNo, wireType] = reader.tag();
    if (wireType === WireType.LengthDelimited) fields.push([fieldNo, reader.bytes()]);
    else if (wireType === WireType.Varint) fields.push([fieldNo, BigInt(reader.uint64())]);
    else reader.skip(wireType, fieldNo);
  }
  return fields;
}

/** Field 1 (`name` / `model_id`) of every entry of repeated field `fieldNo`, in order. */
export function modelIds(bytes: Uint8Array, fieldNo: number): string[] {
  return topLevelFields(bytes)
    .filter(([no, value]) => no === fieldNo && value instanceof Uint8Array)
    .map(([, value]) => {
      const entry = topLevelFields(value as Uint8Array).find(([no]) => no === 1);
      return entry === undefined ? "" : Buffer.from(entry[1] as Uint8Array).toString("utf8");
    });
}

/** `AgentClientMessage{kv_client_message{id, set_blob_result{}}}`. */
export function kvSetResultMessage(id: number): Uint8Array {
  return new BinaryWriter()
    .tag(3, 2)
    .fork()
    .tag(1, 0)
    .uint32(id)
    .tag(3, 2)
    .bytes(new Uint8Array())
    .join()
    .finish();
}

/** `AgentClientMessage{conversation_action{summarize_action{}}}` (a mid-run action). */
export function summarizeActionMessage(): Uint8Array {
  return new BinaryWriter().tag(4, 2).fork().tag(4, 2).bytes(new Uint8Array()).join().finish();
}
