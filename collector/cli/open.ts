/**
 * `kiro-learn open`: asks the running collector for a one-time login code and hands the link to
 * the user (printed always; opened in the browser when someone is at a terminal).
 *
 * The browser is never given the link itself: every user of the machine can read every
 * process's arguments (`/proc/<pid>/cmdline`), so `xdg-open <link>` (and the browser it starts,
 * which keeps its arguments for its whole life) would show the code to anyone polling the
 * process list, who could spend it first. Instead the link goes into a 0600 page in the 0700
 * `viewer-links/` folder of the data dir, and the opener gets that page's `file://` path, which
 * carries nothing secret; the page moves the browser on to the link (as Jupyter's redirect file
 * does, jupyter/notebook#4260). The code rides in the link's fragment, which the browser never
 * sends to a server, and the collector's login page posts it (viewer/mod.ts).
 *
 * @module
 */
import { ROUTES } from "@kiro-learn/core/api";
import { join } from "@kiro-learn/core/path";
import {
  ensureDataDir,
  loadSettings,
  type Settings,
  writeSecureFile,
} from "@kiro-learn/core/settings";
import type { Command } from "./_command.ts";
import { callCollector, collectorUrl } from "./_client.ts";

/** Options for {@linkcode openViewer}. */
export interface OpenViewerOptions {
  /** Where lines go (default console.log). */
  print?: (line: string) => void;
  /**
   * Opens the `file://` URL of the page that leads to the link. Default: the platform's opener
   * (`xdg-open`, `open`, `start`) when stdout is a terminal and `CI` is unset; tests pass their
   * own.
   */
  launch?: (url: string) => Promise<void> | void;
}

/** The code endpoint's answer. */
interface CodeAnswer {
  code: string;
  expires_in_s: number;
  path: string;
}

/**
 * Prints (and maybe opens) a one-time viewer link; returns the exit code. Throws
 * CollectorUnavailableError when the collector is not running, like the other CLI commands.
 */
export async function openViewer(
  settings: Settings,
  options: OpenViewerOptions = {},
): Promise<number> {
  const print = options.print ?? console.log;
  const res = await callCollector(settings, ROUTES.viewerCodes, { method: "POST" });
  if (res.status !== 201) {
    print(`could not get a viewer link (${res.status}): ${JSON.stringify(res.body)}`);
    return 1;
  }
  const answer = res.body as CodeAnswer;
  const url = collectorUrl(settings) + answer.path;
  print(`Open the kiro-learn viewer: ${url}`);
  print(
    `(the link works once and expires in ${answer.expires_in_s} s; run \`kiro-learn open\` again for another)`,
  );
  const launch = options.launch ??
    (shouldLaunch({ isTerminal: Deno.stdout.isTerminal(), ci: Deno.env.get("CI") })
      ? launchBrowser
      : null);
  if (launch) {
    try {
      await launch(await writeLinkPage(settings, url, answer.expires_in_s));
    } catch (error) {
      print(
        `could not open a browser (${
          error instanceof Error ? error.message : error
        }); open the link above`,
      );
    }
  }
  return 0;
}

/**
 * Writes the page that leads the browser to `url` (0600, in the 0700 `viewer-links/` folder) and
 * returns its `file://` URL; pages older than a code's lifetime are deleted first.
 */
export async function writeLinkPage(
  settings: Pick<Settings, "paths">,
  url: string,
  expiresInS: number,
): Promise<string> {
  const dir = settings.paths.viewerLinks;
  ensureDataDir(dir);
  const now = Date.now();
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    const mtime = (await Deno.lstat(path)).mtime?.getTime() ?? 0;
    if (entry.isFile && now - mtime > expiresInS * 1000) await Deno.remove(path);
  }
  const path = join(dir, `open-${crypto.randomUUID()}.html`);
  writeSecureFile(path, linkPage(url), { createNew: true });
  const href = Deno.build.os === "windows"
    ? `file:///${path.replaceAll("\\", "/")}`
    : `file://${path}`;
  return new URL(href).href;
}

/** The page's HTML: moves on to `url` at once, and offers it as a link when it cannot. */
export function linkPage(url: string): string {
  const attr = url.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="referrer" content="no-referrer">',
    `<meta http-equiv="refresh" content="0;url=${attr}">`,
    "<title>Opening the kiro-learn viewer</title></head>",
    `<body><p><a href="${attr}">Open the kiro-learn viewer</a></p></body></html>`,
    "",
  ].join("\n");
}

/** True when opening a browser makes sense: someone is at a terminal and this is not CI. */
export function shouldLaunch(env: { isTerminal: boolean; ci?: string }): boolean {
  return env.isTerminal && (env.ci === undefined || env.ci === "");
}

/** The command that opens `url` in the default browser on `os`. */
export function browserCommand(os: typeof Deno.build.os, url: string): string[] {
  if (os === "darwin") return ["open", url];
  // `start` is a cmd built-in; the empty string is the window title it would take from the URL.
  if (os === "windows") return ["cmd", "/c", "start", "", url];
  return ["xdg-open", url];
}

/** Opens `url` with the platform's opener, detached, without waiting for the browser. */
export async function launchBrowser(url: string): Promise<void> {
  const [command, ...args] = browserCommand(Deno.build.os, url);
  const child = new Deno.Command(command, {
    args,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  // xdg-open returns quickly once it has handed the URL over; a failure exit means no opener.
  const status = await child.status;
  if (!status.success) throw new Error(`${command} exited with ${status.code}`);
}

/** The `open` command. */
export const openCommand: Command = {
  name: "open",
  usage: "kiro-learn open",
  summary: "open the web viewer (prints a one-time link, opens it in a browser when it can)",
  run: () => openViewer(loadSettings()),
};
