// The command lines of a README's `sh` blocks, as a newcomer would type them: comments after the
// command removed, a `curl … -d '…'` spanning several lines joined, output comments skipped.
import { readFileSync } from "node:fs";

/** @returns {{ line: number, command: string }[]} */
export function readmeCommandLines(path) {
  const lines = readFileSync(path, "utf8").split("\n");
  const commands = [];
  let inShell = false;
  for (let index = 0; index < lines.length; index += 1) {
    const text = lines[index];
    if (text.startsWith("```")) {
      inShell = !inShell && text.trim() === "```sh";
      continue;
    }
    if (!inShell || text.trim() === "" || text.trimStart().startsWith("#")) continue;
    let command = text;
    const start = index + 1;
    // A quoted argument may run over several lines (`curl … -d '{ … }'`).
    while ((command.match(/'/g) ?? []).length % 2 === 1 && index + 1 < lines.length) {
      index += 1;
      command += `\n${lines[index]}`;
    }
    commands.push({ line: start, command: withoutComment(command).trim() });
  }
  return commands;
}

/** `cmd --flag   # what it does` → `cmd --flag` (a `#` inside quotes stays). */
function withoutComment(command) {
  let quote = "";
  for (let index = 0; index < command.length; index += 1) {
    const char = command[index];
    if (quote !== "") {
      if (char === quote) quote = "";
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === "#" && (index === 0 || /\s/.test(command[index - 1]))) {
      return command.slice(0, index);
    }
  }
  return command;
}
