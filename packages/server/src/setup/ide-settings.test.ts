import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "jsonc-parser";
import { afterEach, describe, expect, it } from "vitest";
import {
  SettingsFileError,
  applyIdeSettings,
  backupPathFor,
  defaultSettingsPath,
  proxySettings,
  readIdeSettings,
  statePathFor,
  undoIdeSettings,
} from "./ide-settings.js";

const fixture = (name: string) => fileURLToPath(new URL(`./__fixtures__/${name}`, import.meta.url));
const settings = proxySettings("http://127.0.0.1:18080");

const folders: string[] = [];
function copyOf(name: string): string {
  const folder = mkdtempSync(join(tmpdir(), "ide-settings-"));
  folders.push(folder);
  const path = join(folder, "settings.json");
  copyFileSync(fixture(name), path);
  return path;
}
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe("applyIdeSettings / undoIdeSettings", () => {
  it.each(["cursor-settings.jsonc", "cursor-settings-crlf-tabs.jsonc"])(
    "--apply keeps comments, trailing commas and layout, and --undo restores %s byte for byte",
    (name) => {
      const path = copyOf(name);
      const original = readFileSync(path);
      expect(applyIdeSettings({ settingsPath: path, settings })).toEqual({
        outcome: "applied",
        backupPath: backupPathFor(path),
      });
      const applied = readFileSync(path, "utf8");
      expect(readFileSync(backupPathFor(path)).equals(original)).toBe(true);
      expect(parse(applied, [], { allowTrailingComma: true })).toMatchObject(settings);
      // Everything that was there is still there, comments included.
      for (const line of original.toString("utf8").split(/\r?\n/)) {
        if (line.includes("http.proxy")) continue;
        expect(applied).toContain(line);
      }
      if (name.includes("crlf")) {
        expect(applied.split("\r\n").length - 1).toBe(applied.split("\n").length - 1);
        expect(applied).toContain('\t"http.proxy": "http://127.0.0.1:18080"');
      } else {
        expect(applied).toContain(
          '    "http.proxy": "http://127.0.0.1:18080", // the office proxy',
        );
      }

      expect(applyIdeSettings({ settingsPath: path, settings }).outcome).toBe("already-applied");
      expect(undoIdeSettings({ settingsPath: path })).toEqual({ outcome: "restored" });
      expect(readFileSync(path).equals(original)).toBe(true);
      expect(existsSync(backupPathFor(path))).toBe(false);
      expect(existsSync(statePathFor(path))).toBe(false);
      expect(undoIdeSettings({ settingsPath: path })).toEqual({ outcome: "nothing-to-undo" });
    },
  );

  it("leaves an unparsable file untouched with a clear message, and writes no backup", () => {
    const path = copyOf("cursor-settings-broken.jsonc");
    const original = readFileSync(path);
    let caught: unknown;
    try {
      applyIdeSettings({ settingsPath: path, settings });
    } catch (error) {
      caught = error;
    }
    expect(SettingsFileError.isInstance(caught)).toBe(true);
    expect((caught as SettingsFileError).reason).toBe("unparsable");
    expect((caught as Error).message).toBe(
      `${path} is not valid JSON with comments (CommaExpected at line 3, column 5); it was left untouched: fix it, or set the keys by hand`,
    );
    expect(readFileSync(path).equals(original)).toBe(true);
    expect(existsSync(backupPathFor(path))).toBe(false);
    expect(existsSync(statePathFor(path))).toBe(false);
  });

  it("refuses a file whose top level is not an object", () => {
    const path = copyOf("cursor-settings.jsonc");
    writeFileSync(path, "[1, 2]\n");
    expect(() => applyIdeSettings({ settingsPath: path, settings })).toThrow(
      /does not hold a settings object/,
    );
    expect(readFileSync(path, "utf8")).toBe("[1, 2]\n");
  });

  it("creates a missing settings file, and --undo removes it again", () => {
    const path = join(mkdtempSync(join(tmpdir(), "ide-settings-")), "settings.json");
    folders.push(join(path, ".."));
    expect(applyIdeSettings({ settingsPath: path, settings }).backupPath).toBeUndefined();
    expect(readIdeSettings({ settingsPath: path, keys: Object.keys(settings) })).toEqual(settings);
    expect(undoIdeSettings({ settingsPath: path })).toEqual({ outcome: "removed" });
    expect(existsSync(path)).toBe(false);
  });

  it("after edits made since --apply, --undo puts back only the proxy keys and keeps the edits", () => {
    const path = copyOf("cursor-settings.jsonc");
    applyIdeSettings({ settingsPath: path, settings });
    const edited = readFileSync(path, "utf8").replace(
      '"editor.fontSize": 14',
      '"editor.fontSize": 16',
    );
    writeFileSync(path, edited);
    expect(undoIdeSettings({ settingsPath: path })).toEqual({
      outcome: "keys-reverted",
      backupPath: backupPathFor(path),
    });
    const after = readFileSync(path, "utf8");
    expect(after).toContain('"editor.fontSize": 16');
    expect(readIdeSettings({ settingsPath: path, keys: Object.keys(settings) })).toEqual({
      "http.proxy": "http://corp-proxy.example:3128",
      "http.proxySupport": undefined,
      "cursor.general.disableHttp2": undefined,
    });
    expect(after).toContain("// the office proxy");
    // Apart from the font size, the file is the original again.
    expect(after.replace('"editor.fontSize": 16', '"editor.fontSize": 14')).toBe(
      readFileSync(fixture("cursor-settings.jsonc"), "utf8"),
    );
  });

  it("a second --apply with another proxy URL keeps the first backup (the user's original)", () => {
    const path = copyOf("cursor-settings.jsonc");
    const original = readFileSync(path);
    applyIdeSettings({ settingsPath: path, settings });
    applyIdeSettings({ settingsPath: path, settings: proxySettings("http://127.0.0.1:18081") });
    expect(readFileSync(backupPathFor(path)).equals(original)).toBe(true);
    expect(undoIdeSettings({ settingsPath: path }).outcome).toBe("restored");
    expect(readFileSync(path).equals(original)).toBe(true);
  });
});

describe("defaultSettingsPath", () => {
  it("is Cursor's User/settings.json on each platform", () => {
    expect(defaultSettingsPath({ platform: "darwin", home: "/Users/a", env: {} })).toBe(
      "/Users/a/Library/Application Support/Cursor/User/settings.json",
    );
    expect(defaultSettingsPath({ platform: "linux", home: "/home/a", env: {} })).toBe(
      "/home/a/.config/Cursor/User/settings.json",
    );
    expect(
      defaultSettingsPath({ platform: "linux", home: "/home/a", env: { XDG_CONFIG_HOME: "/x" } }),
    ).toBe("/x/Cursor/User/settings.json");
    expect(
      defaultSettingsPath({
        platform: "win32",
        home: "C:/Users/a",
        env: { APPDATA: "C:/Users/a/AppData/Roaming" },
      }),
    ).toBe(join("C:/Users/a/AppData/Roaming", "Cursor", "User", "settings.json"));
  });
});
