import type { JsonValue } from "@cursor/run";

// Keywords strict function calling supports. A schema using anything else (allOf, not,
// patternProperties, …) would be refused in strict mode, so such tools go non-strict.
const strictKeywords: ReadonlySet<string> = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "description",
  "title",
  "$ref",
  "$defs",
  "definitions",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);

/** Nesting the API accepts for strict schemas. */
const maxStrictDepth = 10;

type JsonObjectValue = { readonly [key: string]: JsonValue };

function isObject(value: JsonValue | undefined): value is JsonObjectValue {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isObjectSchema(schema: JsonObjectValue): boolean {
  const type = schema.type;
  return type === "object" || (Array.isArray(type) && type.includes("object"));
}

/** Every object closed (`additionalProperties: false`) and every property listed as required. */
function objectRulesHold(schema: JsonObjectValue): boolean {
  if (schema.additionalProperties !== false) return false;
  const properties = schema.properties ?? {};
  if (!isObject(properties)) return false;
  const required = schema.required ?? [];
  if (!Array.isArray(required)) return false;
  const requiredNames = new Set(required);
  return Object.keys(properties).every((name) => requiredNames.has(name));
}

function childSchemas(schema: JsonObjectValue): JsonValue[] | undefined {
  const children: JsonValue[] = [];
  for (const key of ["properties", "$defs", "definitions"] as const) {
    const group = schema[key];
    if (group === undefined) continue;
    if (!isObject(group)) return undefined;
    children.push(...Object.values(group));
  }
  if (schema.items !== undefined) children.push(schema.items);
  if (schema.anyOf !== undefined) {
    if (!Array.isArray(schema.anyOf)) return undefined;
    children.push(...schema.anyOf);
  }
  return children;
}

// Strict mode needs every node to say what it is; an empty `{}` ("anything") is refused.
const typingKeywords = ["type", "anyOf", "$ref", "enum", "const"] as const;

function isStrictNode(schema: JsonValue, depth: number): boolean {
  if (!isObject(schema) || depth > maxStrictDepth) return false;
  if (!typingKeywords.some((key) => schema[key] !== undefined)) return false;
  if (!Object.keys(schema).every((key) => strictKeywords.has(key))) return false;
  if (isObjectSchema(schema) && !objectRulesHold(schema)) return false;
  const children = childSchemas(schema);
  return children !== undefined && children.every((child) => isStrictNode(child, depth + 1));
}

/**
 * Whether a tool's input schema can be sent with `strict: true`: an object schema at the root,
 * every object closed with all properties required, only supported keywords. A pure function of
 * the schema, so a tool's `strict` flag (part of the cached prefix) never flips between turns.
 */
export function isStrictCompatibleSchema(schema: JsonObjectValue): boolean {
  return isObjectSchema(schema) && isStrictNode(schema, 1);
}
