export const packageName = "@cursor/provider-openai-responses";
