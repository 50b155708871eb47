export const packageName = "@cursor/request";
