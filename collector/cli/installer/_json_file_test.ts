import assert from "node:assert/strict";
import { join } from "node:path";
import { InstallError } from "./errors.ts";
import {
  DEFAULT_STYLE,
  detectJsonStyle,
  isHollow,
  readJsonFile,
  serializeJson,
  writeFileAtomic,
} from "./_json_file.ts";

Deno.test("a missing file reads as absent with the default style", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const state = readJsonFile(join(dir, "nope.json"));
    assert.equal(state.text, null);
    assert.equal(state.doc, undefined);
    assert.deepEqual(state.style, DEFAULT_STYLE);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("unparsable, empty and non-object files are refused with the file and the reason", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const cases: [string, string, RegExp][] = [
      ["trailing.json", '{\n  "a": 1,\n}\n', /trailing\.json is not valid JSON .*line 3/],
      [
        "comment.json",
        '// hi\n{"a": 1}\n',
        /comment\.json has comments \(JSON with comments\).*remove the comments/,
      ],
      ["empty.json", "  \n", /empty\.json is empty/],
      ["array.json", "[1, 2]\n", /array\.json must hold a JSON object .* an array/],
      ["latin1.json", "", /latin1\.json is not UTF-8/],
    ];
    for (const [name, text] of cases) await Deno.writeTextFile(join(dir, name), text);
    await Deno.writeFile(join(dir, "latin1.json"), new Uint8Array([0x7b, 0xe9, 0x7d]));
    for (const [name, , pattern] of cases) {
      assert.throws(() => readJsonFile(join(dir, name)), (error: unknown) => {
        assert.ok(error instanceof InstallError);
        assert.match(error.problems[0], pattern);
        return true;
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a huge broken file is not echoed back in the error", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "big.json");
    await Deno.writeTextFile(path, "{" + '"k": "v",'.repeat(50_000) + "}x");
    assert.throws(() => readJsonFile(path), (error: unknown) => {
      assert.ok((error as Error).message.length < 600);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serialising in the detected style reproduces common layouts byte for byte", () => {
  const doc = { a: 1, b: [1, { c: "é" }], d: {}, e: [] };
  const layouts = [
    JSON.stringify(doc, null, 2) + "\n",
    JSON.stringify(doc, null, 2),
    JSON.stringify(doc, null, 4) + "\n",
    JSON.stringify(doc, null, "\t") + "\n",
    JSON.stringify(doc),
    JSON.stringify(doc, null, 2).replaceAll("\n", "\r\n") + "\r\n",
    "\ufeff" + JSON.stringify(doc, null, 2) + "\n",
  ];
  for (const text of layouts) {
    const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    const style = detectJsonStyle(text, JSON.parse(body));
    assert.equal(serializeJson(JSON.parse(body), style), text, JSON.stringify(text));
  }
});

Deno.test("a one-line empty object grows into the default layout", () => {
  assert.deepEqual(detectJsonStyle("{}", {}), { ...DEFAULT_STYLE, finalNewline: false });
  assert.equal(serializeJson({ a: 1 }, detectJsonStyle("{}\n", {})), '{\n  "a": 1\n}\n');
});

Deno.test("writeFileAtomic keeps the mode and writes through symlinks", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const real = join(dir, "real.json");
    const link = join(dir, "link.json");
    await Deno.writeTextFile(real, "{}\n", { mode: 0o600 });
    await Deno.chmod(real, 0o600);
    await Deno.symlink(real, link);
    writeFileAtomic(link, '{"a":1}\n');
    assert.ok((await Deno.lstat(link)).isSymlink);
    assert.equal(await Deno.readTextFile(real), '{"a":1}\n');
    assert.equal((await Deno.stat(real)).mode! & 0o777, 0o600);
    const fresh = join(dir, "sub", "new.json");
    writeFileAtomic(fresh, "{}\n");
    assert.equal(await Deno.readTextFile(fresh), "{}\n");
    assert.deepEqual(
      [...Deno.readDirSync(dir)].map((e) => e.name).sort(),
      ["link.json", "real.json", "sub"],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("isHollow is true only for nested empty containers", () => {
  assert.ok(isHollow({}));
  assert.ok(isHollow([]));
  assert.ok(isHollow({ a: {}, b: [], c: { d: [] } }));
  assert.ok(!isHollow({ a: [1] }));
  assert.ok(!isHollow({ a: "" }));
  assert.ok(!isHollow({ a: null }));
  assert.ok(!isHollow("x"));
});
