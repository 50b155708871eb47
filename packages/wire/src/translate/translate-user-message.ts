import type { ImageInput, SelectedContextItem, UserMessageInput } from "@cursor/request";
import { imageMimeTypes } from "@cursor/request";
import { ConnectError } from "../connect/connect-error.js";
import type { Range, SelectedContext, SelectedImage, UserMessage } from "../gen/agent_v1_pb.js";
import type { ClientBlobSource } from "./client-blob-source.js";

const decoder = new TextDecoder("utf-8", { fatal: true });

function utf8(data: Uint8Array, what: string): string {
  try {
    return decoder.decode(data);
  } catch (error) {
    throw new ConnectError({
      code: "invalid_argument",
      message: `${what} is not UTF-8 text`,
      cause: error,
    });
  }
}

/** 1-based line numbers of a selection; the IDE's positions count from 1 (Monaco), 0 is clamped. */
function lines(range: Range | undefined): { startLine: number; endLine: number } {
  const start = Math.max(1, range?.start?.line ?? 1);
  const end = Math.max(start, range?.end?.line ?? start);
  return { startLine: start, endLine: end };
}

async function imageOf({
  image,
  index,
  blobs,
}: {
  image: SelectedImage;
  index: number;
  blobs: ClientBlobSource;
}): Promise<ImageInput> {
  const what = `selected_context.selected_images[${index}]`;
  const mimeType = image.mimeType.toLowerCase();
  if (!(imageMimeTypes as readonly string[]).includes(mimeType)) {
    throw new ConnectError({
      code: "invalid_argument",
      message: `${what} is ${image.mimeType || "of no type"}; supported: ${imageMimeTypes.join(", ")}`,
    });
  }
  const source = image.dataOrBlobId;
  let data: Uint8Array;
  switch (source.case) {
    case "data":
      data = source.value;
      break;
    case "blobIdWithData":
      data =
        source.value.data.length > 0
          ? source.value.data
          : await blobs.get(source.value.blobId, `${what} image`);
      break;
    case "blobId":
      data = await blobs.get(source.value, `${what} image`);
      break;
    case undefined:
      throw new ConnectError({ code: "invalid_argument", message: `${what} has no image data` });
    default: {
      const exhaustive: never = source;
      throw new Error(`unknown image source ${JSON.stringify(exhaustive)}`);
    }
  }
  if (data.length === 0) {
    throw new ConnectError({ code: "invalid_argument", message: `${what} is empty` });
  }
  return {
    mimeType: mimeType as ImageInput["mimeType"],
    data: Buffer.from(data).toString("base64"),
  };
}

async function selectedItems({
  context,
  blobs,
}: {
  context: SelectedContext;
  blobs: ClientBlobSource;
}): Promise<SelectedContextItem[]> {
  const items: SelectedContextItem[] = [];
  for (const file of context.files) {
    items.push({
      kind: "file",
      path: file.path || file.relativePath || "file",
      content: file.content,
    });
  }
  for (const selection of context.codeSelections) {
    items.push({
      kind: "code",
      path: selection.path || selection.relativePath || "selection",
      ...lines(selection.range),
      content: selection.content,
    });
  }
  for (const terminal of context.terminals) {
    items.push({
      kind: "terminal",
      title: terminal.title || terminal.path || "terminal",
      content: terminal.content,
    });
  }
  for (const selection of context.terminalSelections) {
    items.push({
      kind: "terminal",
      title: `${selection.title || selection.path || "terminal"} (selection)`,
      content: selection.content,
    });
  }
  // Rules and skills the user attached to this message: turn-level, shown as the files they are.
  for (const attached of context.cursorRules) {
    const rule = attached.rule;
    if (rule === undefined || rule.content.trim() === "") continue;
    items.push({ kind: "file", path: rule.fullPath || "rule", content: rule.content });
  }
  for (const skill of context.selectedSkills) {
    if (skill.content.trim() === "") continue;
    items.push({ kind: "file", path: skill.fullPath || "skill", content: skill.content });
  }
  for (const text of context.extraContext) {
    if (text.trim() !== "") items.push({ kind: "text", content: text });
  }
  for (const [index, entry] of context.extraContextEntries.entries()) {
    const value = entry.dataOrBlobId;
    const text =
      value.case === "data"
        ? value.value
        : value.case === "blobId"
          ? utf8(
              await blobs.get(value.value, `selected_context.extra_context_entries[${index}]`),
              `selected_context.extra_context_entries[${index}]`,
            )
          : "";
    if (text.trim() !== "") items.push({ kind: "text", content: text });
  }
  return items;
}

/**
 * The JSON contract's user message for a Cursor `UserMessage`: its id, its text (or the blob
 * `text_blob_id` names), and the selected context — files, code selections, terminals and
 * terminal selections, attached rules and skills, extra context, images (inline or blob). Other
 * attachment kinds (folders, links, docs, git diffs, past chats) are not translated yet.
 */
export async function translateUserMessage({
  message,
  blobs,
}: {
  message: UserMessage;
  blobs: ClientBlobSource;
}): Promise<UserMessageInput> {
  if (message.messageId === "") {
    throw new ConnectError({
      code: "invalid_argument",
      message: "user_message.message_id is required",
    });
  }
  let text = message.text;
  if (text === "" && message.textBlobId !== undefined && message.textBlobId.length > 0) {
    text = utf8(
      await blobs.get(message.textBlobId, "user_message.text_blob_id"),
      "user_message text blob",
    );
  }
  const context = message.selectedContext;
  const selectedContext = context === undefined ? [] : await selectedItems({ context, blobs });
  const images =
    context === undefined
      ? []
      : await Promise.all(
          context.selectedImages.map((image, index) => imageOf({ image, index, blobs })),
        );
  return {
    id: message.messageId,
    text,
    ...(selectedContext.length === 0 ? {} : { selectedContext }),
    ...(images.length === 0 ? {} : { images }),
  };
}
