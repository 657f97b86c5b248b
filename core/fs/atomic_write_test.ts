import assert from "node:assert/strict";
import { writeFileAtomic } from "./atomic_write.ts";

const modeOf = (path: string) => Deno.statSync(path).mode! & 0o777;

Deno.test("replaces the file whole, 0600 by default, leaving no temp file", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/f`;
  assert.equal(writeFileAtomic(path, "one"), true);
  assert.equal(writeFileAtomic(path, "two", { syncDir: true }), true);
  assert.equal(Deno.readTextFileSync(path), "two");
  if (Deno.build.os !== "windows") assert.equal(modeOf(path), 0o600);
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["f"]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("keepMode keeps an existing file's mode; mkdirs creates the parents", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/a/b/config.json`;
  writeFileAtomic(path, "{}", { mkdirs: true, mode: 0o644 });
  if (Deno.build.os !== "windows") {
    assert.equal(modeOf(path), 0o644);
    Deno.chmodSync(path, 0o640);
    writeFileAtomic(path, '{"a":1}', { keepMode: true, mode: 0o644 });
    assert.equal(modeOf(path), 0o640);
  }
  assert.equal(Deno.readTextFileSync(path), '{"a":1}');
  await Deno.remove(dir, { recursive: true });
});

Deno.test("createNew writes only when absent, and says so", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/token`;
  assert.equal(writeFileAtomic(path, "first", { createNew: true }), true);
  assert.equal(writeFileAtomic(path, "second", { createNew: true }), false);
  assert.equal(Deno.readTextFileSync(path), "first");
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["token"]);
  await Deno.remove(dir, { recursive: true });
});
