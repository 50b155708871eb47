import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadAgentRunRequest } from "./__fixtures__/load-fixture.js";
import * as source from "./index.js";

const packageDir = fileURLToPath(new URL("..", import.meta.url));

/** pnpm as the test was started with (`pnpm test` sets npm_execpath), else from PATH. */
function runPnpm(args: string[]): string {
  const execPath = process.env.npm_execpath;
  const [command, commandArgs] =
    execPath !== undefined && /pnpm/.test(execPath) && /\.c?js$/.test(execPath)
      ? [process.execPath, [execPath, ...args]]
      : ["pnpm", args];
  return execFileSync(command, commandArgs, { cwd: packageDir, encoding: "utf8", stdio: "pipe" });
}

/**
 * What a team installing the package from the registry gets: the packed tarball, extracted
 * outside the repository (so prompt/ cannot be reached), with only its dependencies beside it.
 */
describe("the packed package", () => {
  let workDir = "";
  let packed: typeof source;

  beforeAll(async () => {
    if (!existsSync(join(packageDir, "dist", "index.js"))) {
      throw new Error("dist/ is missing: run `pnpm --filter @cursor/request build` first");
    }
    workDir = mkdtempSync(join(tmpdir(), "cursor-request-pack-"));
    runPnpm(["pack", "--pack-destination", workDir]);
    const tarball = readdirSync(workDir).find((name) => name.endsWith(".tgz"));
    if (tarball === undefined) throw new Error("pnpm pack wrote no tarball");
    execFileSync("tar", ["-xzf", join(workDir, tarball), "-C", workDir]);
    // The installed dependencies (@cursor/run, zod, ...) resolve from a node_modules beside it.
    symlinkSync(join(packageDir, "node_modules"), join(workDir, "node_modules"), "dir");
    packed = await import(pathToFileURL(join(workDir, "package", "dist", "index.js")).href);
  }, 60_000);

  afterAll(() => {
    if (workDir !== "") rmSync(workDir, { recursive: true, force: true });
  });

  it("ships dist and the README, not the prompt sources", () => {
    const files = readdirSync(join(workDir, "package")).sort();
    expect(files).toEqual(expect.arrayContaining(["README.md", "dist", "package.json"]));
    // CHANGELOG.md appears once changesets has versioned the package.
    expect(
      files.filter((f) => !["CHANGELOG.md", "README.md", "dist", "package.json"].includes(f)),
    ).toEqual([]);
    expect(readdirSync(join(workDir, "package", "dist")).some((f) => f.endsWith(".md"))).toBe(
      false,
    );
  });

  it("exports the same API", () => {
    expect(Object.keys(packed).sort()).toEqual(Object.keys(source).sort());
  });

  it("renders the same request context", () => {
    const context = loadAgentRunRequest().requestContext;
    expect(packed.compileRequestContext(context)).toEqual(source.compileRequestContext(context));
  });

  it.each(source.agentModes)("renders the same %s runtime", (mode) => {
    const request = loadAgentRunRequest();
    const input = {
      mode,
      message: request.action.message,
      timestamp: "2026-11-29T10:00:00+01:00",
      timeZone: "Europe/Berlin",
    };
    expect(packed.compileUserTurnRuntime(input)).toEqual(source.compileUserTurnRuntime(input));
  });

  it("renders the same prompt spec and notices", () => {
    const servers = loadAgentRunRequest().requestContext.mcp?.servers;
    const input = { modelDisplayName: "GPT-5", mcpServers: servers };
    expect(packed.createCursorPromptSpec(input)).toEqual(source.createCursorPromptSpec(input));
    expect(packed.summarizerInstructions).toBe(source.summarizerInstructions);
    expect(packed.renderSummaryText("done")).toBe(source.renderSummaryText("done"));
    const completion = { taskId: "t", kind: "shell", status: "success", title: "x" } as const;
    expect(packed.compileBackgroundCompletionRuntime(completion)).toEqual(
      source.compileBackgroundCompletionRuntime(completion),
    );
    expect(packed.compileInjectedContextRuntime({ text: "y" })).toEqual(
      source.compileInjectedContextRuntime({ text: "y" }),
    );
    expect(packed.cursorPromptSources).toEqual(source.cursorPromptSources);
  });
});
