import { accessSync, constants, mkdirSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { StartupError } from "./startup-error.js";

/**
 * Creates the data folder if needed and checks that the gateway can write to it, before
 * anything is opened in it: a folder that cannot be used is one clear error naming the path,
 * not an exception from deep inside SQLite.
 */
export function prepareDataFolder(dataDir: string): string {
  const path = resolve(dataDir);
  const refuse = (problem: string, cause?: unknown): never => {
    throw new StartupError({
      reason: "data-dir",
      message: `the data folder ${path} ${problem}; set CURSOR_GATEWAY_DATA_DIR to a folder this user can write`,
      cause,
    });
  };
  try {
    mkdirSync(path, { recursive: true });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "EEXIST") refuse("is a file, not a folder", error);
    if (code === "ENOTDIR") refuse("cannot be created: a file is in the way", error);
    if (code === "EACCES" || code === "EPERM")
      refuse("cannot be created: permission denied", error);
    if (code === "EROFS") refuse("cannot be created: read-only file system", error);
    refuse(`cannot be created (${code ?? String(error)})`, error);
  }
  if (!statSync(path).isDirectory()) refuse("is a file, not a folder");
  try {
    accessSync(path, constants.W_OK | constants.X_OK);
  } catch (error) {
    refuse("is not writable by this user", error);
  }
  return path;
}
