import { Buffer } from "node:buffer";
import type { JsonObject } from "@cursor/run";
import { canonicalJson } from "@cursor/run";
import { z } from "zod";
import { requestLimits } from "./limits.js";

export function formatByteSize(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function utf8ByteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** A string of at most `maxBytes` UTF-8 bytes (a UTF-16 unit is 1 to 3 bytes, so most skip the count). */
export function boundedText(maxBytes: number) {
  return z
    .string()
    .refine(
      (text) =>
        text.length * 3 <= maxBytes ||
        (text.length <= maxBytes && utf8ByteLength(text) <= maxBytes),
      { message: `must be at most ${formatByteSize(maxBytes)} of UTF-8`, abort: true },
    );
}

/** Like `boundedText`, but with something other than whitespace in it. */
export function nonBlankText(maxBytes: number) {
  return boundedText(maxBytes).refine((text) => text.trim().length > 0, {
    message: "must not be empty or only whitespace",
  });
}

// Control characters (newlines included) would break the one-line markup names and paths are
// rendered into.
const noControlCharacters = /^[^\p{Cc}]*$/u;

export const nameSchema = z
  .string()
  .min(1, "must not be empty")
  .max(requestLimits.maxNameLength, `must be at most ${requestLimits.maxNameLength} characters`)
  .regex(noControlCharacters, "must not contain control characters or line breaks");

export const pathSchema = z
  .string()
  .min(1, "must not be empty")
  .max(requestLimits.maxPathLength, `must be at most ${requestLimits.maxPathLength} characters`)
  .regex(noControlCharacters, "must not contain control characters or line breaks");

/** Client ids become part of canonical message ids, which are printable ASCII without spaces. */
export const clientIdSchema = z
  .string()
  .min(1, "must not be empty")
  .max(
    requestLimits.maxClientIdLength,
    `must be at most ${requestLimits.maxClientIdLength} characters`,
  )
  .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces");

/**
 * Task ids additionally exclude ".", the separator of `bg.<kind>.<taskId>.<toolCallId>` event
 * ids: with a dot, two different (taskId, toolCallId) pairs could share one event id.
 */
export const taskIdSchema = z
  .string()
  .min(1, "must not be empty")
  .max(requestLimits.maxTaskIdLength, `must be at most ${requestLimits.maxTaskIdLength} characters`)
  .regex(/^[\x21-\x2d\x2f-\x7e]+$/, "must be printable ASCII without spaces or dots");

export const lineNumberSchema = z.number().int().min(1).max(requestLimits.maxLineNumber);

export function boundedList<T extends z.ZodType>(item: T, { min = 0 }: { min?: number } = {}) {
  return z
    .array(item)
    .min(min, min === 1 ? "must have at least one item" : `must have at least ${min} items`)
    .max(requestLimits.maxListItems, `must have at most ${requestLimits.maxListItems} items`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

type JsonProblem = { path: (string | number)[]; message: string };

/** Finds the first part of `value` that is not plain JSON, or nests deeper than `maxDepth`. */
function findJsonProblem(value: unknown, maxDepth: number): JsonProblem | undefined {
  const pending: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  // Iterative, so a hostile nesting depth cannot overflow the stack before the depth check.
  while (pending.length > 0) {
    const { value: current, path } = pending.pop()!;
    if (current === null || typeof current === "string" || typeof current === "boolean") continue;
    if (typeof current === "number") {
      if (!Number.isFinite(current)) return { path, message: "must be a finite number" };
      continue;
    }
    const isArray = Array.isArray(current);
    if (!isArray && !isPlainObject(current)) return { path, message: "must be a JSON value" };
    if (path.length >= maxDepth) return { path, message: `must nest at most ${maxDepth} levels` };
    if (isArray) {
      current.forEach((item, index) => pending.push({ value: item, path: [...path, index] }));
    } else {
      for (const [key, item] of Object.entries(current as Record<string, unknown>)) {
        pending.push({ value: item, path: [...path, key] });
      }
    }
  }
  return undefined;
}

/**
 * An MCP tool's input schema: a JSON object (a JSON Schema describing the tool's arguments),
 * bounded in depth and size. Function-calling APIs take object schemas only, so a `type`, when
 * given, must be "object".
 */
export const inputSchemaSchema = z
  .custom<JsonObject>(isPlainObject, { message: "must be a JSON object" })
  .superRefine((schema, context) => {
    const problem = findJsonProblem(schema, requestLimits.maxInputSchemaDepth);
    if (problem !== undefined) {
      context.addIssue({ code: "custom", path: problem.path, message: problem.message });
      return;
    }
    if (utf8ByteLength(canonicalJson(schema)) > requestLimits.maxInputSchemaBytes) {
      context.addIssue({
        code: "custom",
        message: `must be at most ${formatByteSize(requestLimits.maxInputSchemaBytes)} as JSON`,
      });
    }
    if ("type" in schema && schema.type !== "object") {
      context.addIssue({
        code: "custom",
        path: ["type"],
        message: 'must be "object" (tool arguments are an object)',
      });
    }
  });
