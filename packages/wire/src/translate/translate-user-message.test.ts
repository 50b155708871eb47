import { create } from "@bufbuild/protobuf";
import { userMessageInputSchema } from "@cursor/request";
import { describe, expect, it } from "vitest";
import { PreFetchedBlobSchema, UserMessageSchema } from "../gen/agent_v1_pb.js";
import { sha256 } from "../hex.js";
import { ClientBlobSource } from "./client-blob-source.js";
import { translateUserMessage } from "./translate-user-message.js";

const png = Buffer.from("89504e470d0a1a0a", "hex");
const bigText = new TextEncoder().encode("a long prompt moved to a blob");

describe("Cursor UserMessage -> the JSON contract's user message", () => {
  it("translates text and every supported kind of selected context", async () => {
    const message = create(UserMessageSchema, {
      text: "Fix it",
      messageId: "bubble-1",
      selectedContext: {
        files: [{ path: "/repo/a.ts", content: "export const a = 1;\n" }],
        codeSelections: [
          { path: "/repo/b.ts", content: "b()", range: { start: { line: 3 }, end: { line: 5 } } },
        ],
        terminals: [{ title: "zsh", content: "$ npm test" }],
        terminalSelections: [{ content: "FAIL a.test.ts" }],
        cursorRules: [
          { rule: { fullPath: "/repo/.cursor/rules/x.mdc", content: "Attached rule." } },
        ],
        extraContext: ["Some extra."],
        extraContextEntries: [{ dataOrBlobId: { case: "data", value: "An entry." } }],
        selectedImages: [{ mimeType: "image/png", dataOrBlobId: { case: "data", value: png } }],
      },
    });
    const input = await translateUserMessage({
      message,
      blobs: new ClientBlobSource({ prefetched: [], kv: undefined }),
    });
    expect(userMessageInputSchema.safeParse(input).success).toBe(true);
    expect(input).toEqual({
      id: "bubble-1",
      text: "Fix it",
      selectedContext: [
        { kind: "file", path: "/repo/a.ts", content: "export const a = 1;\n" },
        { kind: "code", path: "/repo/b.ts", startLine: 3, endLine: 5, content: "b()" },
        { kind: "terminal", title: "zsh", content: "$ npm test" },
        { kind: "terminal", title: "terminal (selection)", content: "FAIL a.test.ts" },
        { kind: "file", path: "/repo/.cursor/rules/x.mdc", content: "Attached rule." },
        { kind: "text", content: "Some extra." },
        { kind: "text", content: "An entry." },
      ],
      images: [{ mimeType: "image/png", data: png.toString("base64") }],
    });
  });

  it("reads text and images that the client moved into blobs", async () => {
    const message = create(UserMessageSchema, {
      messageId: "bubble-2",
      textBlobId: sha256(bigText),
      selectedContext: {
        selectedImages: [
          { mimeType: "image/png", dataOrBlobId: { case: "blobId", value: sha256(png) } },
        ],
      },
    });
    const input = await translateUserMessage({
      message,
      blobs: new ClientBlobSource({
        prefetched: [
          create(PreFetchedBlobSchema, { id: sha256(bigText), value: bigText }),
          create(PreFetchedBlobSchema, { id: sha256(png), value: png }),
        ],
        kv: undefined,
      }),
    });
    expect(input.text).toBe("a long prompt moved to a blob");
    expect(input.images).toEqual([{ mimeType: "image/png", data: png.toString("base64") }]);
  });

  it("refuses a message without id and an image type no provider takes", async () => {
    const blobs = new ClientBlobSource({ prefetched: [], kv: undefined });
    await expect(
      translateUserMessage({ message: create(UserMessageSchema, { text: "x" }), blobs }),
    ).rejects.toThrow("user_message.message_id is required");
    await expect(
      translateUserMessage({
        message: create(UserMessageSchema, {
          text: "x",
          messageId: "m",
          selectedContext: {
            selectedImages: [{ mimeType: "image/bmp", dataOrBlobId: { case: "data", value: png } }],
          },
        }),
        blobs,
      }),
    ).rejects.toThrow(
      "selected_context.selected_images[0] is image/bmp; supported: image/png, image/jpeg, image/gif, image/webp",
    );
  });
});
