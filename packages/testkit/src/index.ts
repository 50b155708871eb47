export const packageName = "@cursor/testkit";
