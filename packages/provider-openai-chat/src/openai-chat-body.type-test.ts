// Compile-time only (checked by `tsc --noEmit`, never bundled or run): the body this package
// builds must stay assignable to the official SDK's streaming request type, so an SDK upgrade
// that changes the wire format fails the typecheck instead of a live request.
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import type { ChatBody } from "./openai-chat-api.js";

type Assert<T extends true> = T;

export type ChatBodyIsSdkStreamingParams = Assert<
  ChatBody extends ChatCompletionCreateParamsStreaming ? true : false
>;

export function asSdkStreamingParams(body: ChatBody): ChatCompletionCreateParamsStreaming {
  return body;
}
