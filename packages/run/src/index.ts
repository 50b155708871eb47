export const packageName = "@cursor/run";
