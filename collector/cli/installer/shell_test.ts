import assert from "node:assert/strict";
import fc from "fast-check";
import {
  assertArgv,
  HOOK_MARKER,
  hookArgv,
  hookCommand,
  isOurCommand,
  quoteArgv,
  shellQuote,
  splitCommand,
} from "./shell.ts";

Deno.test("plain words stay bare, everything else is single-quoted", () => {
  assert.equal(shellQuote("/usr/bin/deno"), "/usr/bin/deno");
  assert.equal(shellQuote("--allow-read=/a,/b"), "--allow-read=/a,/b");
  assert.equal(shellQuote("my dir"), "'my dir'");
  assert.equal(shellQuote("it's"), `'it'\\''s'`);
  assert.equal(shellQuote(""), "''");
  assert.equal(shellQuote("$HOME"), "'$HOME'");
  assert.equal(shellQuote("a;rm -rf /"), "'a;rm -rf /'");
});

Deno.test("splitCommand undoes quoteArgv for any argv", () => {
  const arg = fc.string({ unit: "binary", maxLength: 20 }).filter((s) => !/[\0\r\n]/.test(s));
  fc.assert(fc.property(fc.array(arg, { minLength: 1, maxLength: 6 }), (argv) => {
    assert.deepEqual(splitCommand(quoteArgv(argv)), argv);
  }));
});

Deno.test("a hook command ends with || true and the marker, and splits back to its argv", () => {
  const argv = ["/opt/deno", "run", "-A", "/home/me/my tools/shim.ts", "claude-code"];
  const command = hookCommand(argv);
  assert.ok(command.endsWith(`|| true ${HOOK_MARKER}`));
  assert.deepEqual(splitCommand(command), argv);
});

Deno.test("the quoted command really runs the argv in sh", async () => {
  const argv = ["printf", "%s|", "a b", "it's", "$HOME", "`x`", '"q"', "\\"];
  const output = await new Deno.Command("sh", { args: ["-c", hookCommand(argv)] }).output();
  assert.equal(output.code, 0);
  assert.equal(new TextDecoder().decode(output.stdout), 'a b|it\'s|$HOME|`x`|"q"|\\|');
});

Deno.test("the exec form: the shell becomes the program, and a missing one does nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kl-exec-hook-" });
  try {
    // The program prints its parent: the agent's own process (here this `sh -c`'s parent's
    // child, the shell itself) when the shell exec'd it, a shell of its own otherwise.
    const program = `${dir}/my hook`;
    await Deno.writeTextFile(program, '#!/bin/sh\nprintf "%s %s" "$1" "$PPID"\n', { mode: 0o755 });
    const command = hookCommand([program, "it's"], { exec: true });
    assert.ok(command.endsWith(`; true ${HOOK_MARKER}`), command);
    assert.deepEqual(hookArgv(command), [program, "it's"]);
    // Run through an outer shell that prints its own pid first: the hook's `sh -c` is its child.
    const outer = await new Deno.Command("sh", {
      args: ["-c", 'printf "%s " "$$"; sh -c "$1"; true', "outer", command],
    }).output();
    assert.equal(outer.code, 0, new TextDecoder().decode(outer.stderr));
    const [outerPid, arg, parent] = new TextDecoder().decode(outer.stdout).split(" ");
    assert.equal(arg, "it's");
    assert.equal(parent, outerPid, "the hook's shell exec'd the program: no shell in between");
    const missing = hookCommand([`${dir}/gone`, "x"], { exec: true });
    const quiet = await new Deno.Command("sh", { args: ["-c", missing] }).output();
    assert.deepEqual([quiet.code, quiet.stdout.length, quiet.stderr.length], [0, 0, 0]);
    assert.deepEqual(hookArgv(missing), [`${dir}/gone`, "x"]);
    // A bare program name (found on PATH, not by `-x`) keeps the `|| true` form.
    assert.equal(hookCommand(["true"], { exec: true }), hookCommand(["true"]));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a failing program does not fail the hook", async () => {
  const output = await new Deno.Command("sh", { args: ["-c", hookCommand(["false"])] }).output();
  assert.equal(output.code, 0);
});

Deno.test("splitCommand reads double quotes, escapes and stops at operators and comments", () => {
  assert.deepEqual(splitCommand(`"/a b/shim" x || true`), ["/a b/shim", "x"]);
  assert.deepEqual(splitCommand(`/a\\ b/shim; echo hi`), ["/a b/shim"]);
  assert.deepEqual(splitCommand(`shim # comment`), ["shim"]);
  assert.deepEqual(splitCommand(`a#b`), ["a#b"]);
  assert.deepEqual(splitCommand(`"\\"x\\""`), ['"x"']);
});

Deno.test("assertArgv rejects what a shell cannot carry", () => {
  assert.throws(() => assertArgv([]), TypeError);
  assert.throws(() => assertArgv([""]), TypeError);
  assert.throws(() => assertArgv(["a", "b\nc"]), TypeError);
  assert.throws(() => assertArgv(["a", 1 as unknown as string]), TypeError);
  assertArgv(["a", ""]);
});

Deno.test("isOurCommand recognises the marker, known commands and Node-edition shims only", () => {
  assert.ok(isOurCommand(hookCommand(["/x/shim"])));
  assert.ok(isOurCommand("/new/deno run /x/shim.ts", ["/x/shim.ts"]));
  assert.ok(isOurCommand(`"/home/u/.kiro-learn/bin/shim" || true`));
  assert.ok(isOurCommand(`"/home/u/.kiro-learn/bin/ide-shim" promptSubmit || true`));
  assert.ok(!isOurCommand("npm run lint"));
  assert.ok(!isOurCommand("echo kiro-learn is great"));
  assert.ok(!isOurCommand(undefined));
  assert.ok(!isOurCommand("anything", [""]));
});
