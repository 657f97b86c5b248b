import assert from "node:assert/strict";
import { posix, win32 } from "node:path";
import fc from "fast-check";
import {
  dirname,
  fromFileUrl,
  isAbsolute,
  isInside,
  join,
  joinWith,
  normalize,
  POSIX,
  resolve,
  resolveWith,
  sep,
  WINDOWS,
} from "./path.ts";

const piece = fc.constantFrom("", ".", "..", "a", "b", "src", "x y", "é", "/", "//", "a/", "/b");
const posixPath = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(""));

Deno.test("property: POSIX helpers behave exactly like node:path.posix", () => {
  fc.assert(
    fc.property(posixPath, (path) => {
      assert.equal(normalize(path, POSIX), posix.normalize(path), `normalize ${path}`);
      assert.equal(dirname(path, POSIX), posix.dirname(path), `dirname ${path}`);
      assert.equal(isAbsolute(path, POSIX), posix.isAbsolute(path), `isAbsolute ${path}`);
    }),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(fc.array(posixPath, { maxLength: 4 }), (parts) => {
      assert.equal(joinWith(POSIX, ...parts), posix.join(...parts), `join ${parts}`);
      assert.equal(
        resolveWith(POSIX, () => "/cwd/here", ...parts),
        posix.resolve("/cwd/here", ...parts),
        `resolve ${parts}`,
      );
    }),
    { numRuns: 2000 },
  );
});

Deno.test("the platform functions are the POSIX ones here", { ignore: sep !== "/" }, () => {
  assert.equal(join("/a", "b", "../c"), "/a/c");
  assert.equal(resolve("rel"), posix.resolve("rel"));
  assert.equal(resolve("/x", "..", "y/"), "/y");
  assert.equal(dirname("/a/b/"), "/a");
});

Deno.test("Windows flavor: drive and backslash roots, both separators", () => {
  const cases = ["C:\\a\\b", "C:/a/b/", "C:\\", "\\a\\..\\b", "a\\b\\..\\c", "C:\\a\\..\\..\\b"];
  for (const path of cases) {
    assert.equal(normalize(path, WINDOWS), win32.normalize(path), `normalize ${path}`);
    assert.equal(dirname(path, WINDOWS), win32.dirname(path), `dirname ${path}`);
    assert.equal(isAbsolute(path, WINDOWS), win32.isAbsolute(path), `isAbsolute ${path}`);
  }
  assert.equal(joinWith(WINDOWS, "C:\\Users\\ada", ".git"), win32.join("C:\\Users\\ada", ".git"));
  assert.equal(
    resolveWith(WINDOWS, () => "C:\\cwd", "D:\\repo\\.git\\worktrees\\x", "..\\.."),
    win32.resolve("D:\\repo\\.git\\worktrees\\x", "..\\.."),
  );
  assert.equal(resolveWith(WINDOWS, () => "C:\\cwd", "sub"), "C:\\cwd\\sub");
});

Deno.test("fromFileUrl decodes percent escapes", () => {
  assert.equal(
    fromFileUrl("file:///opt/kiro%20learn/it's/x.ts", POSIX),
    "/opt/kiro learn/it's/x.ts",
  );
  assert.equal(
    fromFileUrl(new URL("file:///C:/kiro%20learn/x.ts"), WINDOWS),
    "C:\\kiro learn\\x.ts",
  );
  assert.equal(fromFileUrl("file://server/share/x", WINDOWS), "\\\\server\\share\\x");
  assert.throws(() => fromFileUrl("https://example.com/x"), TypeError);
});

Deno.test("isInside: the folder itself and what lies below it, never a sibling or a way out", () => {
  assert.equal(isInside("/a/b", "/a/b", POSIX), true);
  assert.equal(isInside("/a/b/c/d", "/a/b", POSIX), true);
  assert.equal(isInside("/a/b/", "/a/b", POSIX), true);
  assert.equal(isInside("/a/b/c", "/a/b/", POSIX), true);
  assert.equal(isInside("/a/bc", "/a/b", POSIX), false);
  assert.equal(isInside("/a", "/a/b", POSIX), false);
  assert.equal(isInside("/a/b/../c", "/a/b", POSIX), false);
  assert.equal(isInside("/a/b/./c//d", "/a/b", POSIX), true);
  assert.equal(isInside("/anything", "/", POSIX), true);
  assert.equal(isInside("C:\\work\\x", "C:/work", WINDOWS), true);
  assert.equal(isInside("C:\\workx", "C:\\work", WINDOWS), false);
});
