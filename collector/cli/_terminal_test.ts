import assert from "node:assert/strict";
import { guardConsoleOutput } from "./_terminal.ts";

Deno.test("every console method of the CLI prints stored text with its controls escaped", () => {
  const lines: unknown[][] = [];
  const record = (...args: unknown[]) => lines.push(args);
  const target = { log: record, info: record, warn: record, error: record, debug: record };
  guardConsoleOutput(target as unknown as Console);
  target.log("1. [decision] \x1b]0;owned\x07Fix\x1b[2J  (mr_1)");
  target.error("kiro-learn search:", "\x1b]52;c;ZWNobw==\x07", { title: "\u009b2J" }, 3);
  assert.deepEqual(lines, [
    ["1. [decision] \\u001b]0;owned\\u0007Fix\\u001b[2J  (mr_1)"],
    ["kiro-learn search:", "\\u001b]52;c;ZWNobw==\\u0007", '{ title: "\\x9b2J" }', "3"],
  ]);
});
