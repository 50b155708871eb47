// Markdown prompt assets are imported as their text (tsup `loader`, vitest plugin): the module's
// default export is the file's content.
declare module "*.md" {
  const text: string;
  export = text;
}
