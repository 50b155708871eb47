import { z } from "zod";
import { requestLimits } from "./limits.js";
import {
  boundedList,
  boundedText,
  clientIdSchema,
  formatByteSize,
  lineNumberSchema,
  nameSchema,
  pathSchema,
} from "./schema-primitives.js";

const fileContentSchema = boundedText(requestLimits.maxFileContentBytes);

export const selectedContextItemSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("file"), path: pathSchema, content: fileContentSchema }),
  z
    .strictObject({
      kind: z.literal("code"),
      path: pathSchema,
      startLine: lineNumberSchema,
      endLine: lineNumberSchema,
      content: fileContentSchema,
    })
    .refine((code) => code.endLine >= code.startLine, {
      path: ["endLine"],
      message: "must not be before startLine",
    }),
  z.strictObject({ kind: z.literal("terminal"), title: nameSchema, content: fileContentSchema }),
  z.strictObject({ kind: z.literal("text"), content: boundedText(requestLimits.maxTextBytes) }),
]);

/** An open or recently viewed file: where it is and where the user is in it. */
export const fileReferenceSchema = z.strictObject({
  path: pathSchema,
  totalLines: z.number().int().min(0).max(requestLimits.maxLineNumber),
  focused: z.boolean().optional(),
  cursorLine: lineNumberSchema.optional(),
});

/** The image types every supported provider accepts. */
export const imageMimeTypes = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

export const imageInputSchema = z.strictObject({
  mimeType: z.enum(imageMimeTypes),
  data: z
    .string()
    .min(1, "must not be empty")
    .max(
      requestLimits.maxImageBase64Bytes,
      `must be at most ${formatByteSize(requestLimits.maxImageBase64Bytes)} of base64`,
    )
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, "must be base64 (A-Z, a-z, 0-9, +, / and = padding)")
    .refine((data) => data.length % 4 === 0, {
      message: "must be padded base64 (a multiple of 4 characters)",
    }),
});

export const userMessageInputSchema = z
  .strictObject({
    id: clientIdSchema,
    text: boundedText(requestLimits.maxTextBytes),
    selectedContext: boundedList(selectedContextItemSchema).optional(),
    openFiles: boundedList(fileReferenceSchema).optional(),
    recentFiles: boundedList(fileReferenceSchema).optional(),
    images: z
      .array(imageInputSchema)
      .max(requestLimits.maxImages, `must have at most ${requestLimits.maxImages} items`)
      .optional(),
  })
  .refine((message) => message.text.trim().length > 0 || (message.images?.length ?? 0) > 0, {
    path: ["text"],
    message: "must not be empty unless the message has images",
  });

export type SelectedContextItem = z.infer<typeof selectedContextItemSchema>;
export type FileReference = z.infer<typeof fileReferenceSchema>;
export type ImageMimeType = (typeof imageMimeTypes)[number];
export type ImageInput = z.infer<typeof imageInputSchema>;
export type UserMessageInput = z.infer<typeof userMessageInputSchema>;
