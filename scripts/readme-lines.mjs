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
    const start = index + 1;
    // A quoted argument may run over several lines (`curl … -d '{ … }'`); a comment ends the
    // command (an apostrophe in it is not a quote).
    let command = text;
    let scanned = scan(command);
    while (scanned.openQuote && index + 1 < lines.length) {
      index += 1;
      command += `\n${lines[index]}`;
      scanned = scan(command);
    }
    commands.push({ line: start, command: scanned.command.trim() });
  }
  return commands;
}

/**
 * `cmd --flag   # what it does` → `cmd --flag` (a `#` inside quotes stays); `openQuote` when the
 * text ends inside a quoted argument.
 */
function scan(command) {
  let quote = "";
  for (let index = 0; index < command.length; index += 1) {
    const char = command[index];
    if (quote !== "") {
      if (char === quote) quote = "";
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === "#" && (index === 0 || /\s/.test(command[index - 1]))) {
      return { command: command.slice(0, index), openQuote: false };
    }
  }
  return { command, openQuote: quote !== "" };
}
