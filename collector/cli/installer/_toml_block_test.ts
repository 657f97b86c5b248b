// Our block in a user's TOML file, on real-world Codex config.toml samples (testdata/codex/),
// checked with a real TOML parser (Python's tomllib, in a child process): the rest of the file
// stays byte for byte, and what Codex reads is the user's settings plus exactly our tables.
import assert from "node:assert/strict";
import { InstallError } from "./errors.ts";
import { parseToml } from "./_test_support.ts";
import {
  findTomlBlock,
  parseKey,
  TOML_BLOCK_BEGIN,
  TOML_BLOCK_END,
  tomlKey,
  tomlNames,
  tomlString,
  withoutTomlBlock,
  withTomlBlock,
} from "./_toml_block.ts";

const SAMPLES = new URL("./testdata/codex/", import.meta.url).pathname;
const BODY = '[mcp_servers."kiro-learn-memory"]\ncommand = "sh"\nargs = ["-c", "exec x"]\n';

for (const name of ["typical", "hooks_and_trust", "crlf_no_final_newline", "multiline_strings"]) {
  Deno.test(`our block in ${name}.toml: added at the end, valid TOML, taken out byte for byte`, async () => {
    const original = Deno.readTextFileSync(`${SAMPLES}${name}.toml`);
    const added = withTomlBlock(original, BODY, "config.toml");
    assert.ok(added.startsWith(original), "nothing before the block changes");
    const parsed = await parseToml(added);
    const servers = parsed.mcp_servers as Record<string, unknown>;
    assert.deepEqual(servers["kiro-learn-memory"], { command: "sh", args: ["-c", "exec x"] });
    delete servers["kiro-learn-memory"];
    if (Object.keys(servers).length === 0) delete parsed.mcp_servers;
    assert.deepEqual(parsed, await parseToml(original), "the user's settings read the same");
    assert.equal(withoutTomlBlock(added, "config.toml"), original);
    assert.equal(withTomlBlock(added, BODY, "config.toml"), added, "a reinstall changes nothing");
    // A new body replaces the block where it stands.
    const changed = withTomlBlock(added, BODY.replace("exec x", "exec y"), "config.toml");
    assert.equal(withoutTomlBlock(changed, "config.toml"), original);
    assert.equal(withTomlBlock(added, "", "config.toml"), original, "an empty body takes it out");
  });
}

Deno.test("our block stays where it stood when the user added settings after it", () => {
  const original = 'model = "o3"\n';
  const added = withTomlBlock(original, BODY, "c") + "\n[tui]\nnotifications = true\n";
  const replaced = withTomlBlock(added, BODY.replace("exec x", "exec y"), "c");
  assert.ok(replaced.endsWith("\n[tui]\nnotifications = true\n"));
  assert.match(replaced, /exec y/);
  assert.equal(withoutTomlBlock(added, "c"), original + "\n[tui]\nnotifications = true\n");
});

Deno.test("a file we created holds only our block, which starts it", () => {
  const created = withTomlBlock("", BODY, "c");
  assert.ok(created.startsWith(TOML_BLOCK_BEGIN + "\n"));
  assert.ok(created.endsWith(TOML_BLOCK_END + "\n"));
  assert.equal(withoutTomlBlock(created, "c"), "");
});

Deno.test("a half block or two blocks: a clear error, nothing guessed", () => {
  const half = `a = 1\n${TOML_BLOCK_BEGIN}\n[x]\n`;
  assert.throws(() => findTomlBlock(half, "/h/.codex/config.toml"), (error: unknown) => {
    assert.ok(error instanceof InstallError);
    assert.match(
      error.message,
      /config\.toml has the start line of kiro-learn's block but not its end line/,
    );
    return true;
  });
  const twice = withTomlBlock("a = 1\n", BODY, "c") + withTomlBlock("", BODY, "c");
  assert.throws(() => findTomlBlock(twice, "c"), /appears twice/);
  // A marker inside another line is not ours.
  assert.equal(findTomlBlock(`a = "${TOML_BLOCK_BEGIN}"\n`, "c"), null);
});

Deno.test("tomlNames: headers and full key names; multi-line strings are not read as keys", () => {
  const text = Deno.readTextFileSync(`${SAMPLES}multiline_strings.toml`);
  assert.deepEqual(tomlNames(text, "c"), {
    tables: [],
    keys: [["developer_instructions"], ["model"]],
  });
  const dotted = Deno.readTextFileSync(`${SAMPLES}dotted_mcp.toml`);
  assert.deepEqual(tomlNames(dotted, "c").keys, [
    ["model"],
    ["mcp_servers", "kiro-learn-memory", "command"],
  ]);
  const typical = Deno.readTextFileSync(`${SAMPLES}typical.toml`);
  assert.deepEqual(tomlNames(typical, "c").tables[1], ["projects", "/home/ada/code/app"]);
});

Deno.test("keys and strings: quoted when they must be, read back the same", async () => {
  const key = ["hooks", "state", '/home/a "b"/.codex/hooks.json:stop:0:0'];
  assert.deepEqual(parseKey(tomlKey(key)), key);
  assert.equal(tomlKey(["mcp_servers", "kiro-learn-memory"]), "mcp_servers.kiro-learn-memory");
  const value = 'exec "$HOME"/x\\y\ttab\u0001';
  const parsed = await parseToml(`[${tomlKey(key)}]\nv = ${tomlString(value)}\n`);
  const state = (parsed.hooks as Record<string, Record<string, Record<string, string>>>).state;
  assert.equal(state[key[2]].v, value);
});
