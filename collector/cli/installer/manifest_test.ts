import assert from "node:assert/strict";
import { join } from "node:path";
import {
  deletePath,
  emptyManifest,
  hollowedPaths,
  hollowPaths,
  type Manifest,
  readManifest,
  serializeManifest,
} from "./manifest.ts";

Deno.test("the manifest serialises the same whatever the insertion order, and reads back", async () => {
  const a: Manifest = {
    version: 1,
    files: {
      "/b": { kind: "kiro-mcp", created: false, keep: [["mcpServers"], ["hooks", "x"]] },
      "/a": { kind: "kiro-llm-agent", created: true, keep: [], sha256: "ab".repeat(32) },
    },
    dirs: ["/z", "/y", "/z"],
  };
  const b: Manifest = {
    version: 1,
    files: {
      "/a": a.files["/a"],
      "/b": { ...a.files["/b"], keep: [["hooks", "x"], ["mcpServers"]] },
    },
    dirs: ["/y", "/z"],
  };
  assert.equal(serializeManifest(a), serializeManifest(b));
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "m.json");
    await Deno.writeTextFile(path, serializeManifest(a));
    const read = readManifest(path);
    assert.equal(read.warning, undefined);
    assert.equal(serializeManifest(read.manifest), serializeManifest(a));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a missing manifest is empty; a damaged one is empty with a warning", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assert.deepEqual(readManifest(join(dir, "none.json")), {
      manifest: emptyManifest(),
      text: null,
    });
    for (
      const text of [
        "{oops",
        '{"version": 2, "files": {}}',
        '{"version":1,"files":{"/a":{"kind":"x"}}}',
      ]
    ) {
      await Deno.writeTextFile(join(dir, "m.json"), text);
      const read = readManifest(join(dir, "m.json"));
      assert.deepEqual(read.manifest, emptyManifest());
      assert.equal(read.text, text);
      assert.match(read.warning!, /damaged/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("hollow paths and paths hollowed by a change", () => {
  const before = { a: {}, b: { c: [], d: [1] }, e: "x" };
  assert.deepEqual(hollowPaths(before), [["a"], ["b", "c"]]);
  const after = { a: {}, b: { c: [], d: [] }, e: "x" };
  assert.deepEqual(hollowedPaths(before, after), [["b"], ["b", "d"]]);
  const doc = structuredClone(after) as Record<string, unknown>;
  deletePath(doc, ["b", "d"]);
  deletePath(doc, ["nope", "deeper"]);
  assert.deepEqual(doc, { a: {}, b: { c: [] }, e: "x" });
});

Deno.test("a record's hash must be 64 hex digits, or the record is damaged", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "m.json");
    const record = (sha256: unknown) =>
      JSON.stringify({
        version: 1,
        files: { "/a": { kind: "kiro-mcp", created: true, keep: [], sha256 } },
        dirs: [],
      });
    await Deno.writeTextFile(path, record("0".repeat(64)));
    assert.equal(readManifest(path).manifest.files["/a"].sha256, "0".repeat(64));
    for (const bad of ["xyz", 42, "0".repeat(63)]) {
      await Deno.writeTextFile(path, record(bad));
      const read = readManifest(path);
      assert.match(read.warning ?? "", /damaged/, String(bad));
      assert.deepEqual(read.manifest, emptyManifest());
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
