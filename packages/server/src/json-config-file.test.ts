import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { readJsonConfigFile } from "./json-config-file.js";

const dir = mkdtempSync(join(tmpdir(), "json-config-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
function file(text: string): string {
  files += 1;
  const path = join(dir, `config-${files}.json`);
  writeFileSync(path, text);
  return path;
}

const variable = "CURSOR_GATEWAY_TEST_FILE";
const schema = z.strictObject({
  name: z.string().min(1, "must not be empty"),
  items: z.array(z.strictObject({ size: z.number().int("an integer") })),
});

function read(path: string) {
  return readJsonConfigFile({ path, variable, schema });
}

describe("readJsonConfigFile", () => {
  it("returns the parsed data and the label further messages start with", () => {
    const path = file(JSON.stringify({ name: "a", items: [{ size: 2 }] }));
    expect(read(path)).toStrictEqual({
      success: true,
      data: { name: "a", items: [{ size: 2 }] },
      where: `${variable} (${path})`,
    });
  });

  it("names a missing file by its errno code", () => {
    const path = join(dir, "absent.json");
    expect(read(path)).toStrictEqual({
      success: false,
      issues: [`${variable} (${path}): cannot read the file (ENOENT)`],
    });
  });

  it("names a file that cannot be read by its errno code", () => {
    expect(read(dir)).toStrictEqual({
      success: false,
      issues: [`${variable} (${dir}): cannot read the file (EISDIR)`],
    });
  });

  it("says where text that is not JSON breaks without quoting it", () => {
    const path = file('{"name": "secret-looking-text" oops}');
    const result = read(path);
    expect(result).toStrictEqual({
      success: false,
      issues: [expect.stringMatching(/^CURSOR_GATEWAY_TEST_FILE \(.*\): not valid JSON/)],
    });
    expect(JSON.stringify(result)).not.toContain("secret-looking-text");
  });

  it("reports every schema issue with its path in the file", () => {
    const path = file(JSON.stringify({ name: "", items: [{ size: 1 }, { size: 1.5 }], extra: 1 }));
    const result = read(path);
    expect(result.success).toBe(false);
    expect(result.success ? [] : [...result.issues].sort()).toStrictEqual(
      [
        `${variable} (${path}): (file): Unrecognized key: "extra"`,
        `${variable} (${path}): name: must not be empty`,
        `${variable} (${path}): items[1].size: an integer`,
      ].sort(),
    );
  });
});
