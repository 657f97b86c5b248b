import assert from "node:assert/strict";
import { CODEX_VERSION, codexExecArgs, requireCodex } from "./codex_client.ts";

Deno.test("codexExecArgs: offline against the given Responses model, plugins off, no key in argv", () => {
  const args = codexExecArgs("Run the check", "http://127.0.0.1:4321/v1");
  assert.equal(args[0], "exec");
  assert.equal(args.at(-1), "Run the check");
  assert.deepEqual(args.slice(2, 4), ["--disable", "plugins"]);
  const provider = args.find((a) => a.startsWith("model_providers.scripted="))!;
  assert.match(provider, /base_url="http:\/\/127\.0\.0\.1:4321\/v1"/);
  assert.match(provider, /wire_api="responses"/);
  assert.match(provider, /env_key="KIRO_LEARN_SCRIPTED_MODEL_KEY"/);
  assert.ok(!args.join(" ").includes("sk-"), "the dummy key travels in the environment only");
});

Deno.test("requireCodex: the pinned client is installed, with its native binary from npm", () => {
  const binary = requireCodex();
  const out = new Deno.Command(binary, { args: ["--version"], stdin: "null" }).outputSync();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal(new TextDecoder().decode(out.stdout).trim(), `codex-cli ${CODEX_VERSION}`);
});
