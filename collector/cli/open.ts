/**
 * `kiro-learn open`: asks the running collector for a one-time login code and hands the link to
 * the user (printed always; opened in the browser when someone is at a terminal).
 *
 * @module
 */
import { ROUTES } from "@kiro-learn/core/api";
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import type { Command } from "./_command.ts";
import { callCollector, collectorUrl } from "./_client.ts";

/** Options for {@linkcode openViewer}. */
export interface OpenViewerOptions {
  /** Where lines go (default console.log). */
  print?: (line: string) => void;
  /**
   * Opens the link. Default: the platform's opener (`xdg-open`, `open`, `start`) when stdout is
   * a terminal and `CI` is unset; tests pass their own.
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
      await launch(url);
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
