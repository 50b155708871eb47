import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The key that signs client checkpoints: from the configuration when set (every process of a
 * deployment shares it), else generated once and kept in the data folder (mode 0600).
 */
export function loadCheckpointSecret({
  dataDir,
  configured,
}: {
  dataDir: string;
  configured?: string;
}): string {
  if (configured !== undefined) return configured;
  const file = join(dataDir, "checkpoint-secret");
  if (existsSync(file)) {
    const secret = readFileSync(file, "utf8").trim();
    if (secret.length >= 32) return secret;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  // `wx` fails if another process created it first; then use theirs.
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
    return secret;
  } catch {
    return readFileSync(file, "utf8").trim();
  }
}
