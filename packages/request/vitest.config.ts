import { readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
    {
      // Mirrors tsup's `loader: { ".md": "text" }`: a Markdown import is its text.
      name: "markdown-as-text",
      enforce: "pre",
      load(id) {
        const file = id.split("?")[0] ?? id;
        if (!file.endsWith(".md")) return null;
        return `export default ${JSON.stringify(readFileSync(file, "utf8"))};`;
      },
    },
  ],
  test: { include: ["src/**/*.test.ts"] },
});
