import assert from "node:assert/strict";
import fc from "fast-check";
import { mimeType, parseStaticPath, serveStatic, STATIC_ROOT } from "./_static.ts";
import { howToOpenPage, shellPage } from "./_pages.tsx";

Deno.test("parseStaticPath: traversal, NUL and encodings are refused", () => {
  const cases: [string, number | "ok"][] = [
    ["app.js", "ok"],
    ["fonts/inter.woff2", "ok"],
    ["..", 403],
    ["../secret", 403],
    ["a/../../etc/passwd", 403],
    ["%2e%2e/etc/passwd", 403],
    ["%2E%2E%2Fetc%2Fpasswd", 403],
    ["..%2fetc", 403],
    ["./app.js", 403],
    ["%252e%252e/etc", 400],
    ["app.js%00.png", 400],
    ["app.js\0", 400],
    ["%E0%A4%A", 400],
    ["..\\windows", 400],
    ["a%5c..%5cb", 400],
    ["", 404],
    ["/etc/passwd", 404],
    ["a//b", 404],
    [".env", 404],
    ["dir/.hidden", 404],
    ["spaced%20name.js", 404],
  ];
  for (const [raw, expected] of cases) {
    const parsed = parseStaticPath(raw);
    assert.equal(parsed.ok ? "ok" : parsed.status, expected, raw);
  }
});

Deno.test("parseStaticPath property: accepted paths are plain segments that stay under the root", () => {
  const alphabet = fc.constantFrom(
    ..."aZ9._-/\\%2eEfF0025c".split(""),
    "..",
    "%2e",
    "%2f",
    "%00",
    "%25",
    "\0",
    "é",
  );
  fc.assert(
    fc.property(fc.array(alphabet, { maxLength: 30 }).map((parts) => parts.join("")), (raw) => {
      const parsed = parseStaticPath(raw);
      if (!parsed.ok) return;
      for (const segment of parsed.segments) {
        assert.match(segment, /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/);
        assert.notEqual(segment, "..");
      }
      const root = "/srv/static";
      const joined = new URL(`file://${root}/${parsed.segments.join("/")}`).pathname;
      assert.ok(joined.startsWith(root + "/"), joined);
    }),
    { numRuns: 2000 },
  );
});

Deno.test("parseStaticPath property: any path with a dot-dot segment is never accepted", () => {
  const segment = fc.stringMatching(/^[A-Za-z0-9._-]{1,8}$/);
  const dotdot = fc.constantFrom("..", "%2e%2e", "%2E.", ".%2e");
  fc.assert(
    fc.property(
      fc.array(segment, { maxLength: 4 }),
      dotdot,
      fc.array(segment, { maxLength: 4 }),
      (a, d, b) => {
        const parsed = parseStaticPath([...a, d, ...b].join("/"));
        assert.equal(parsed.ok, false);
      },
    ),
  );
});

Deno.test("mimeType uses the fixed table, octet-stream otherwise", () => {
  assert.equal(mimeType("app.js"), "text/javascript; charset=utf-8");
  assert.equal(mimeType("APP.CSS"), "text/css; charset=utf-8");
  assert.equal(mimeType("favicon.svg"), "image/svg+xml");
  assert.equal(mimeType("font.woff2"), "font/woff2");
  assert.equal(mimeType("archive.tar"), "application/octet-stream");
  assert.equal(mimeType("Makefile"), "application/octet-stream");
});

Deno.test("serveStatic serves files under the root only, symlinks included", async () => {
  const base = await Deno.makeTempDir({ prefix: "kiro-learn-static-" });
  try {
    const root = `${base}/static`;
    await Deno.mkdir(`${root}/sub`, { recursive: true });
    await Deno.writeTextFile(`${root}/app.js`, "console.log(1);\n");
    await Deno.writeTextFile(`${root}/sub/style.css`, "body{}\n");
    await Deno.writeTextFile(`${base}/secret.txt`, "do not serve\n");
    await Deno.symlink(`${base}/secret.txt`, `${root}/leak.txt`);
    await Deno.symlink(`${root}/app.js`, `${root}/alias.js`);

    const ok = await serveStatic("app.js", { root });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(ok.headers.get("x-content-type-options"), "nosniff");
    assert.equal(ok.headers.get("cache-control"), "no-cache");
    assert.equal(await ok.text(), "console.log(1);\n");

    const etag = ok.headers.get("etag")!;
    const cached = await serveStatic("app.js", {
      root,
      request: new Request("http://x/", { headers: { "if-none-match": etag } }),
    });
    assert.equal(cached.status, 304);

    assert.equal((await serveStatic("sub/style.css", { root })).status, 200);
    assert.equal(
      (await serveStatic("alias.js", { root })).status,
      200,
      "an inside symlink is fine",
    );
    const leak = await serveStatic("leak.txt", { root });
    assert.equal(leak.status, 403, "a symlink out of the root is refused");
    assert.ok(!(await leak.text()).includes("do not serve"));
    assert.equal((await serveStatic("sub", { root })).status, 404, "directories are not listed");
    assert.equal((await serveStatic("missing.js", { root })).status, 404);
    assert.equal((await serveStatic("../secret.txt", { root })).status, 403);
    assert.equal((await serveStatic("%2e%2e/secret.txt", { root })).status, 403);
    assert.equal((await serveStatic("app.js%00", { root })).status, 400);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("the real asset directory has what the pages load, as the right types", async () => {
  const html = shellPage({ page: "overview", title: "Overview", version: "0" }) +
    howToOpenPage({ version: "0" });
  const names = [...new Set([...html.matchAll(/"\/ui\/static\/([^"]+)"/g)].map((m) => m[1]))];
  assert.deepEqual(names.sort(), ["app.css", "favicon.svg", "js/app.js", "js/theme.js"]);
  for (const name of [...names, "js/pages/graph.js"]) {
    const res = await serveStatic(name);
    assert.equal(res.status, 200, name);
    assert.equal(res.headers.get("content-type"), mimeType(name), name);
    await res.body?.cancel();
  }
  assert.equal(mimeType("js/app.js"), "text/javascript; charset=utf-8");
  assert.ok(STATIC_ROOT.endsWith("/collector/daemon/viewer/static"));
});
