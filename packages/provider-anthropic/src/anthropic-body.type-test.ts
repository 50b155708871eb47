// Compile-time only (checked by `tsc --noEmit`, never run): the body this package builds must
// be a valid streaming request for the official SDK, so a wire-type drift fails the typecheck.
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages";
import type { AnthropicBody } from "./anthropic-api.js";

type IsAssignable<From, To> = [From] extends [To] ? true : false;

export const anthropicBodyIsStreamingParams: IsAssignable<
  AnthropicBody,
  MessageCreateParamsStreaming
> = true;
