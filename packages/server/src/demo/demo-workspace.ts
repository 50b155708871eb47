import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/**
 * The small project the demo's agent works on: a few TypeScript files written into a temporary
 * folder. The demo runs the agent's tool calls on it for real, as a Cursor client runs them in
 * the user's workspace.
 */
const settings = Array.from(
  { length: 40 },
  (_, i) => `  setting${i}: process.env.SETTING_${i} ?? "default-${i}",`,
).join("\n");

export const demoFiles: Readonly<Record<string, string>> = {
  "package.json": `${JSON.stringify(
    {
      name: "demo-app",
      version: "1.0.0",
      type: "module",
      scripts: { start: "node dist/main.js", test: "vitest run" },
      dependencies: { fastify: "5.12.8" },
    },
    null,
    2,
  )}\n`,
  "README.md":
    "# demo-app\n\nA small HTTP service: `src/main.ts` loads the configuration and starts the server.\n\nRun it with `pnpm start`; configure it with environment variables (see `src/config.ts`).\n",
  "src/config.ts": `/** The service's settings, from the environment. */
export interface Config {
  readonly port: number;
  readonly host: string;
}

export function loadConfig(env = process.env): Config {
  return { port: Number(env.PORT ?? 8080), host: env.HOST ?? "127.0.0.1" };
}

export const defaults = {
${settings}
};
`,
  "src/server.ts": `import Fastify from "fastify";
import type { Config } from "./config.js";

export async function startServer(config: Config) {
  const app = Fastify();
  app.get("/healthz", async () => ({ ok: true }));
  await app.listen({ port: config.port, host: config.host });
  return app;
}
`,
  "src/main.ts": `import { loadConfig } from "./config.js";
import { startServer } from "./server.js";

await startServer(loadConfig());
`,
};

export function writeDemoWorkspace(root: string): void {
  for (const [path, content] of Object.entries(demoFiles)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** One tool result, as the client sends it back (`tool-results`). */
export interface DemoToolResult {
  readonly output: string;
  readonly isError?: boolean;
}

/** Runs one of the agent's tool calls on the workspace: read_file, grep, list_directory. */
export function runDemoTool({
  root,
  name,
  args,
}: {
  root: string;
  name: string;
  args: string;
}): DemoToolResult {
  let input: Record<string, unknown>;
  try {
    input = JSON.parse(args) as Record<string, unknown>;
  } catch {
    return { output: `invalid arguments: ${args}`, isError: true };
  }
  const inside = (path: unknown): string | undefined => {
    if (typeof path !== "string") return undefined;
    const absolute = isAbsolute(path) ? path : resolve(root, path);
    return absolute === root || absolute.startsWith(root + sep) ? absolute : undefined;
  };
  switch (name) {
    case "read_file": {
      const file = inside(input.path);
      if (file === undefined)
        return { output: `not in the workspace: ${String(input.path)}`, isError: true };
      try {
        return {
          output: readFileSync(file, "utf8")
            .replace(/\n$/, "")
            .split("\n")
            .map((line, index) => `${String(index + 1).padStart(6)}\t${line}`)
            .join("\n"),
        };
      } catch {
        return { output: `no such file: ${String(input.path)}`, isError: true };
      }
    }
    case "grep": {
      let pattern: RegExp;
      try {
        pattern = new RegExp(
          String(input.pattern ?? ""),
          input.case_insensitive === true ? "i" : "",
        );
      } catch (error) {
        return { output: `invalid pattern: ${(error as Error).message}`, isError: true };
      }
      const matches = listFiles(root).flatMap((file) =>
        readFileSync(join(root, file), "utf8")
          .split("\n")
          .flatMap((line, index) => (pattern.test(line) ? [`${file}:${index + 1}: ${line}`] : [])),
      );
      return { output: matches.length === 0 ? "no matches" : matches.join("\n") };
    }
    case "list_directory": {
      const folder = inside(input.path ?? ".");
      if (folder === undefined)
        return { output: `not in the workspace: ${String(input.path)}`, isError: true };
      return {
        output: readdirSync(folder, { withFileTypes: true })
          .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
          .sort()
          .join("\n"),
      };
    }
    default:
      return { output: `the demo client does not run ${name}`, isError: true };
  }
}

/** Every file below `root`, as sorted relative paths with `/`. */
function listFiles(root: string, folder = root): string[] {
  return readdirSync(folder)
    .sort()
    .flatMap((name) => {
      const path = join(folder, name);
      return statSync(path).isDirectory()
        ? listFiles(root, path)
        : [relative(root, path).split(sep).join("/")];
    });
}
