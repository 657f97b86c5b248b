// A sandbox's shell after `kiro-learn link`: the launcher is the `kiro-learn` on PATH, and a
// block run with `sh -e` stops at its first failing command.
import assert from "node:assert/strict";
import { agentSandbox, outputText } from "./claude_client.ts";
import { linkedShell } from "./linked_shell.ts";

Deno.test("linkedShell: kiro-learn on PATH is the launcher link wrote; sh -e stops at a failure", async () => {
  await using box = await agentSandbox({ prefix: "kiro-learn-linked-" });
  const shell = await linkedShell(box);
  assert.equal(shell.bin, `${box.home}/.local/bin`);
  const ran = await shell.sh("command -v kiro-learn\nfalse\necho never", box.home);
  assert.notEqual(ran.code, 0);
  assert.equal(outputText(ran), `${shell.bin}/kiro-learn\n`);
  const help = await shell.kiroLearn(["--help"], box.home);
  assert.equal(help.code, 0, outputText(help));
  assert.match(outputText(help), /kiro-learn/);
});
