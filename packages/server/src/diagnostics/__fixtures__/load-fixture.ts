import { readFileSync } from "node:fs";

/**
 * Request bodies the real provider packages serialised for one short conversation (request
 * context, a tool round, a second user turn): `<provider>-call-<n>.json`.
 */
export function loadFixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`./${name}.json`, import.meta.url), "utf8")) as Record<
    string,
    unknown
  >;
}
