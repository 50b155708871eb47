import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeProvider } from "@cursor/testkit";
import type { WireApi } from "./provider-bodies.js";

export const wireApis: readonly WireApi[] = ["openai-responses", "openai-chat", "anthropic"];

/** A key the gateway passes to the provider SDK; the fake provider accepts any. */
export const testProviderKey = "sk-e2e-test-key-never-stored";

/** Shared by every gateway process of a test that resumes checkpoints across data folders. */
export const testCheckpointSecret = "e2e-checkpoint-secret-0123456789abcdef";

/** Provider call ids in each API's own style. */
export function callIdPrefix(api: WireApi): string {
  return api === "anthropic" ? "toolu" : "call";
}

/** The environment of `cursor-gateway serve` pointed at a fake provider for one API. */
export function gatewayEnvironment({
  api,
  fake,
  dataDir,
  extra = {},
}: {
  api: WireApi;
  fake: FakeProvider;
  dataDir: string;
  extra?: Record<string, string>;
}): Record<string, string> {
  const provider: Record<string, string> =
    api === "anthropic"
      ? { ANTHROPIC_BASE_URL: fake.anthropicBaseURL, ANTHROPIC_API_KEY: testProviderKey }
      : { OPENAI_BASE_URL: fake.openaiBaseURL, OPENAI_API_KEY: testProviderKey };
  return {
    CURSOR_GATEWAY_PROVIDER: api,
    CURSOR_GATEWAY_DATA_DIR: dataDir,
    ...provider,
    ...extra,
  };
}

/** Temporary folders of one test file, removed by `removeAll` (afterAll). */
export function temporaryFolders(prefix: string) {
  const created: string[] = [];
  return {
    create(): string {
      const folder = mkdtempSync(join(tmpdir(), `cursor-gateway-${prefix}-`));
      created.push(folder);
      return folder;
    },
    removeAll(): void {
      for (const folder of created.splice(0)) rmSync(folder, { recursive: true, force: true });
    },
  };
}
