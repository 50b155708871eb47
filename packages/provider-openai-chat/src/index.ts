export const packageName = "@cursor/provider-openai-chat";
