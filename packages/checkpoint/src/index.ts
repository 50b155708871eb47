export const packageName = "@cursor/checkpoint";
