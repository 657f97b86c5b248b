import assert from "node:assert/strict";
import { chooseRemote, normalizeRemoteUrl, parseRemoteUrls } from "./_git_remote.ts";

const base = "/home/dev/code/app";
const norm = (url: string) => normalizeRemoteUrl(url, { base });

Deno.test("scp-like git@host:owner/repo.git", () => {
  assert.equal(norm("git@github.com:acme/payments.git"), "github.com/acme/payments");
  assert.equal(norm("github.com:acme/payments"), "github.com/acme/payments");
  assert.equal(norm("git@github.com:/acme/payments.git/"), "github.com/acme/payments");
});

Deno.test("ssh:// with user and port, and git+ssh://", () => {
  assert.equal(norm("ssh://git@github.com/acme/payments.git"), "github.com/acme/payments");
  assert.equal(norm("ssh://git@gitlab.corp:2222/team/app.git"), "gitlab.corp/team/app");
  assert.equal(norm("git+ssh://git@github.com/acme/payments"), "github.com/acme/payments");
  assert.equal(norm("ssh+git://github.com/acme/payments"), "github.com/acme/payments");
});

Deno.test("https:// with user and token: credentials never survive", () => {
  const url = norm("https://deploy:ghp_s3cr3tT0ken@github.com/acme/payments.git");
  assert.equal(url, "github.com/acme/payments");
  assert.ok(!url!.includes("ghp_") && !url!.includes("deploy"));
  assert.equal(
    norm("https://oauth2:glpat-abc@gitlab.com/acme/payments"),
    "gitlab.com/acme/payments",
  );
  assert.equal(norm("http://user@example.org/acme/payments/"), "example.org/acme/payments");
  assert.equal(
    norm("https://github.com/acme/payments.git?token=abc#frag"),
    "github.com/acme/payments",
  );
});

Deno.test("git:// protocol", () => {
  assert.equal(norm("git://git.kernel.org/pub/scm/git/git.git"), "git.kernel.org/pub/scm/git/git");
});

Deno.test("default and custom ports, host case, trailing .git and slashes all agree", () => {
  const forms = [
    "https://GitHub.COM/acme/payments",
    "https://github.com:443/acme/payments.git",
    "ssh://git@github.com:22/acme/payments.git/",
    "git://github.com:9418/acme/payments.git",
    "git@GITHUB.com:acme/payments.git",
    "https://github.com//acme//payments//",
  ];
  for (const form of forms) assert.equal(norm(form), "github.com/acme/payments", form);
});

Deno.test("the path keeps its case; only one .git suffix goes", () => {
  assert.equal(norm("https://github.com/Acme/Payments"), "github.com/Acme/Payments");
  assert.notEqual(
    norm("https://github.com/Acme/Payments"),
    norm("https://github.com/acme/payments"),
  );
  assert.equal(norm("https://host/a/repo.git.git"), "host/a/repo.git");
});

Deno.test("IPv6 hosts keep their brackets and lose the port", () => {
  assert.equal(norm("ssh://git@[::1]:2222/acme/app.git"), "[::1]/acme/app");
});

Deno.test("local paths, file:// URLs and relative paths name one absolute path", () => {
  assert.equal(norm("/srv/git/app.git"), "file:///srv/git/app");
  assert.equal(norm("/srv/git/app/"), "file:///srv/git/app");
  assert.equal(norm("/srv/git/app/.git"), "file:///srv/git/app");
  assert.equal(norm("file:///srv/git/app.git"), "file:///srv/git/app");
  assert.equal(norm("file://localhost/srv/git/app"), "file:///srv/git/app");
  assert.equal(norm("../shared/app.git"), "file:///home/dev/code/shared/app");
  assert.equal(norm("./vendor/lib"), "file:///home/dev/code/app/vendor/lib");
});

Deno.test("unknown forms and empty values give null (the path decides then)", () => {
  assert.equal(norm(""), null);
  assert.equal(norm("   "), null);
  assert.equal(norm("codecommit::us-east-1://payments"), null);
  assert.equal(norm("svn://host/repo"), null);
  assert.equal(norm("https://"), null);
  assert.equal(norm("git@github.com:"), null);
});

Deno.test("config parsing: sections, quotes, comments, escapes, continuations", () => {
  const text = [
    "[core]",
    "\trepositoryformatversion = 0",
    "\turl = not-a-remote",
    '[remote "upstream"]',
    "\turl = https://github.com/up/stream.git ; a comment",
    "\tfetch = +refs/heads/*:refs/remotes/upstream/*",
    '[Remote "Odd Name"]',
    '\tURL = "git@host:a/b.git" # quoted',
    "[remote.legacy]",
    "\turl = git@host:leg/acy\\",
    ".git",
    '[remote "origin"] url = https://github.com/acme/app',
    "\turl = https://mirror.example/acme/app",
    '[remote "esc\\"aped"]',
    '\turl = "/srv/with \\"quote\\""',
  ].join("\n");
  const remotes = parseRemoteUrls(text);
  assert.deepEqual([...remotes.keys()], ["upstream", "Odd Name", "legacy", "origin", 'esc"aped']);
  assert.deepEqual(remotes.get("upstream"), ["https://github.com/up/stream.git"]);
  assert.deepEqual(remotes.get("Odd Name"), ["git@host:a/b.git"]);
  assert.deepEqual(remotes.get("legacy"), ["git@host:leg/acy.git"]);
  assert.deepEqual(remotes.get("origin"), [
    "https://github.com/acme/app",
    "https://mirror.example/acme/app",
  ]);
  assert.deepEqual(remotes.get('esc"aped'), ['/srv/with "quote"']);
});

Deno.test("remote choice: origin wins wherever it is, else the first with a URL", () => {
  const withOrigin = '[remote "a"]\n url = git@h:a/a\n[remote "origin"]\n url = git@h:o/o\n';
  assert.deepEqual(chooseRemote(withOrigin, { base }), { name: "origin", url: "h/o/o" });
  const noOrigin = '[remote "empty"]\n fetch = x\n[remote "b"]\n url = git@h:b/b\n[remote "a"]\n' +
    " url = git@h:a/a\n";
  assert.deepEqual(chooseRemote(noOrigin, { base }), { name: "b", url: "h/b/b" });
  assert.equal(chooseRemote("[core]\n bare = false\n", { base }), null);
  assert.equal(chooseRemote('[remote "origin"]\n url = codecommit::x://y\n', { base }), null);
});
