import { randomBytes } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "./config.js";

/** As `CURSOR_GATEWAY_CHECKPOINT_SECRET` requires (config.ts). */
const minCheckpointSecretLength = 32;

/**
 * The key that signs client checkpoints: from the configuration when set (every process of a
 * deployment shares it), else generated once and kept in the data folder (mode 0600). A secret
 * file that holds less than a usable secret (empty, truncated, edited) refuses the start, as a
 * short variable does: a gateway with it could neither issue nor accept any checkpoint.
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
  if (existsSync(file)) return readSecretFile(file);
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  // Written whole under a temporary name, then linked into place: another process starting on
  // the same folder sees either no file or the complete secret, never a partly written one, and
  // `link` fails if that process created the file first (then use theirs).
  const temporary = join(
    dataDir,
    `.checkpoint-secret.${process.pid}.${randomBytes(6).toString("hex")}`,
  );
  writeFileSync(temporary, `${secret}\n`, { mode: 0o600 });
  try {
    linkSync(temporary, file);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return readSecretFile(file);
  } finally {
    rmSync(temporary, { force: true });
  }
}

function readSecretFile(file: string): string {
  const secret = readFileSync(file, "utf8").trim();
  if (secret.length < minCheckpointSecretLength) {
    throw new ConfigError({
      issues: [
        `${file}: the checkpoint secret holds ${secret.length} characters, at least ${minCheckpointSecretLength} are needed; restore the file, set CURSOR_GATEWAY_CHECKPOINT_SECRET, or delete the file to have a new secret generated (checkpoints clients hold then stop verifying)`,
      ],
    });
  }
  return secret;
}
