export const packageName = "@cursor/provider-anthropic";
