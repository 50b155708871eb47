import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { gatewayCliPath } from "./gateway-process.js";

// `cursor-gateway demo` (what `pnpm demo` runs): a real gateway process on the simulated
// provider, whose scripted agent decides the tool calls the demo then runs on its workspace.
function runDemo(): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [gatewayCliPath, "demo"], {
    env: { PATH: process.env.PATH ?? "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, output })));
}

describe("cursor-gateway demo", () => {
  it("shows real tool rounds, full prefix reuse and a retry that calls no provider", async () => {
    const { code, output } = await runDemo();
    expect(code, output).toBe(0);
    // The agent's own decisions, and the results of running them on the demo workspace.
    expect(output).toContain('model calls grep {"pattern":"loadConfig"}');
    expect(output).toContain('model calls read_file {"path":"src/config.ts"}');
    expect(output).toContain('model answers "src/server.ts has 9 lines; it exports startServer."');
    expect(output).toContain(
      'model answers "Noted: the background task "pnpm test" ended with status success."',
    );
    const rows = output.split("\n").filter((line) => /^ +\d+ \|/.test(line));
    expect(rows).toHaveLength(13);
    // Every call after the first reads all the cache could hold of the call before.
    for (const row of rows.slice(1)) expect(row).toMatch(/\| +100\.0%$/);
    expect(output).toMatch(
      /retry of the last turn: ended completed, 0 provider calls, messages (\d+) → \1/,
    );
    expect(output).toMatch(/session: 13 provider calls, .*, 100\.0% of the best possible/);
  });
});
