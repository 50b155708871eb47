import type { CanonicalMessage, JsonValue } from "@cursor/run";
import type { StoredConversation } from "./gateway-store.js";

/** The `conversations` columns a head read selects, the same in both stores. */
export const conversationColumns = `epoch, message_count, head_digest, last_run_id, input_tokens,
  cached_input_tokens, cache_write_tokens, output_tokens, last_input_tokens,
  last_input_message_count, prompt_spec_input`;

/** A `conversations` row as both stores read it (`conversationColumns`). */
export interface ConversationRow {
  epoch: number;
  message_count: number;
  head_digest: string;
  last_run_id: string | null;
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_tokens: number;
  output_tokens: number;
  last_input_tokens: number | null;
  last_input_message_count: number | null;
  prompt_spec_input: string | null;
}

/**
 * A head row with its (already verified) messages and turn records as a `StoredConversation`:
 * NULL columns become absent fields, so both stores load the same value for the same row.
 */
export function storedConversation({
  tenant,
  conversationId,
  row,
  messages,
  turns,
}: {
  tenant: string;
  conversationId: string;
  row: ConversationRow;
  messages: CanonicalMessage[];
  turns: JsonValue[];
}): StoredConversation {
  return {
    tenant,
    conversationId,
    epoch: row.epoch,
    messages,
    headDigest: row.head_digest,
    turns,
    ...(row.last_run_id === null ? {} : { lastRunId: row.last_run_id }),
    usage: {
      inputTokens: row.input_tokens,
      cachedInputTokens: row.cached_input_tokens,
      cacheWriteTokens: row.cache_write_tokens,
      outputTokens: row.output_tokens,
    },
    ...(row.last_input_tokens === null || row.last_input_message_count === null
      ? {}
      : {
          lastInput: {
            inputTokens: row.last_input_tokens,
            messageCount: row.last_input_message_count,
          },
        }),
    ...(row.prompt_spec_input === null
      ? {}
      : { promptSpecInput: JSON.parse(row.prompt_spec_input) as JsonValue }),
  };
}
