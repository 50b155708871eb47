export const packageName = "@cursor/projection";
