export const packageName = "@cursor/server";
