import assert from "node:assert/strict";
import type { Settings } from "@kiro-learn/core/settings";
import { CollectorUnavailableError } from "@kiro-learn/core/api";
import { withCollectorProof } from "@kiro-learn/core/testing";
import { browserCommand, linkPage, openViewer, shouldLaunch, writeLinkPage } from "./open.ts";

Deno.test("a browser is opened only for someone at a terminal, outside CI", () => {
  assert.equal(shouldLaunch({ isTerminal: true }), true);
  assert.equal(shouldLaunch({ isTerminal: true, ci: "" }), true);
  assert.equal(shouldLaunch({ isTerminal: true, ci: "true" }), false);
  assert.equal(shouldLaunch({ isTerminal: false }), false);
});

Deno.test("the platform opener", () => {
  const url = "file:///home/u/.kiro-learn/viewer-links/open-1.html";
  assert.deepEqual(browserCommand("linux", url), ["xdg-open", url]);
  assert.deepEqual(browserCommand("darwin", url), ["open", url]);
  assert.deepEqual(browserCommand("windows", url), ["cmd", "/c", "start", "", url]);
});

/** Settings pointing at a stub collector on `port`, with a token file in a temp dir. */
async function stubSettings(port: number): Promise<{ settings: Settings; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-open-" });
  await Deno.writeTextFile(`${dir}/token`, "secret-token\n");
  const settings = {
    collector: { host: "127.0.0.1", port },
    paths: { token: `${dir}/token`, viewerLinks: `${dir}/viewer-links` },
  } as unknown as Settings;
  return { settings, dir };
}

Deno.test("openViewer prints the link, launches it, and survives a failing opener", async () => {
  const seen: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    withCollectorProof("secret-token", (req) => {
      seen.push(`${req.method} ${new URL(req.url).pathname} ${req.headers.get("authorization")}`);
      return Response.json({ code: "abc", expires_in_s: 60, path: "/ui/login#code=abc" }, {
        status: 201,
      });
    }),
  );
  const { settings, dir } = await stubSettings(server.addr.port);
  try {
    const lines: string[] = [];
    const launched: string[] = [];
    const code = await openViewer(settings, {
      print: (l) => lines.push(l),
      launch: (u) => {
        launched.push(u);
      },
    });
    const link = `http://127.0.0.1:${server.addr.port}/ui/login#code=abc`;
    assert.equal(code, 0);
    assert.deepEqual(seen, ["POST /v1/ui/codes Bearer secret-token"]);
    assert.equal(lines[0], `Open the kiro-learn viewer: ${link}`);
    assert.match(lines[1], /works once and expires in 60 s/);
    // The opener gets a file:// page with nothing secret in its URL; the page holds the link and
    // only this user can read it.
    assert.equal(launched.length, 1);
    assert.match(launched[0], /^file:\/\/.+\/viewer-links\/open-[0-9a-f-]{36}\.html$/);
    assert.ok(!launched[0].includes("abc"));
    const page = new URL(launched[0]).pathname;
    assert.equal((await Deno.stat(page)).mode! & 0o777, 0o600);
    assert.equal((await Deno.stat(`${dir}/viewer-links`)).mode! & 0o777, 0o700);
    assert.equal(await Deno.readTextFile(page), linkPage(link));

    const failing: string[] = [];
    const again = await openViewer(settings, {
      print: (l) => failing.push(l),
      launch: () => Promise.reject(new Error("no display")),
    });
    assert.equal(again, 0, "the printed link is still good");
    assert.match(failing.at(-1)!, /could not open a browser \(no display\); open the link above/);
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openViewer reports a refusal, and a stopped collector like the other commands", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    withCollectorProof(
      "secret-token",
      () => Response.json({ error: "unauthorized" }, { status: 401 }),
    ),
  );
  const { settings, dir } = await stubSettings(server.addr.port);
  try {
    const lines: string[] = [];
    assert.equal(await openViewer(settings, { print: (l) => lines.push(l), launch: () => {} }), 1);
    assert.match(lines[0], /could not get a viewer link \(401\)/);
  } finally {
    await server.shutdown();
  }
  try {
    await assert.rejects(
      openViewer(settings, { print: () => {}, launch: () => {} }),
      CollectorUnavailableError,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the link page moves on to the link, escaped, and offers it when it cannot", () => {
  const html = linkPage('http://127.0.0.1:1/ui/login#code=a"b<c&d');
  assert.match(
    html,
    /<meta http-equiv="refresh" content="0;url=http:\/\/127\.0\.0\.1:1\/ui\/login#code=a&quot;b&lt;c&amp;d">/,
  );
  assert.match(html, /<meta name="referrer" content="no-referrer">/);
  assert.ok(!html.includes('a"b'));
});

Deno.test("writeLinkPage deletes the pages of codes that have expired, and only those", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-open-" });
  try {
    const settings = { paths: { viewerLinks: `${dir}/viewer-links` } } as unknown as Settings;
    const first = await writeLinkPage(settings, "http://127.0.0.1:1/ui/login#code=a", 60);
    const stale = new URL(first).pathname;
    const old = new Date(Date.now() - 61_000);
    await Deno.utime(stale, old, old);
    const recent = new URL(
      await writeLinkPage(settings, "http://127.0.0.1:1/ui/login#code=b", 60),
    ).pathname;
    const third = new URL(
      await writeLinkPage(settings, "http://127.0.0.1:1/ui/login#code=c", 60),
    ).pathname;
    const left = [...Deno.readDirSync(`${dir}/viewer-links`)].map((e) => e.name).sort();
    assert.deepEqual(left, [recent, third].map((p) => p.split("/").at(-1)!).sort());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
