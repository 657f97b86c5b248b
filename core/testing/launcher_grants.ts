/**
 * What a hook launcher grants its shim to read, seen by running it: the launcher's `deno` is a
 * script that prints its arguments, so the `--allow-read=` list it prints is exactly what the
 * launcher built from the folder it runs in (its project root, a `.git` file's git dir,
 * `CLAUDE_CONFIG_DIR`). Shared by the launchers' tests and the attack suite.
 *
 * @module
 */
import assert from "node:assert/strict";
import { hookLauncherScript } from "../launch/mod.ts";
import { loadSettings } from "../settings/mod.ts";

/**
 * The read roots the launcher of `surface` grants when a hook fires in `cwd` (with `env`);
 * `home` is a writable temporary `$HOME` holding the data dir.
 */
export async function launcherReadGrant(
  surface: "kiro-cli" | "claude-code",
  options: { home: string; cwd: string; env?: Record<string, string> },
): Promise<string[]> {
  const printer = `${options.home}/print-args`;
  await Deno.writeTextFile(printer, "#!/bin/sh\nprintf '%s\\n' \"$@\"\n", { mode: 0o700 });
  const settings = loadSettings({ env: { KIRO_LEARN_HOME: `${options.home}/.kiro-learn` } });
  const launcher = `${options.home}/hook-${surface}`;
  await Deno.writeTextFile(
    launcher,
    hookLauncherScript(surface, {
      settings,
      home: options.home,
      preferCompiled: false,
      denoPath: printer,
    }),
    { mode: 0o700 },
  );
  const out = await new Deno.Command("sh", {
    args: [launcher],
    cwd: options.cwd,
    clearEnv: true,
    env: { HOME: options.home, PATH: "/usr/bin:/bin", ...options.env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = out.stdin.getWriter();
  // The printer never reads its stdin: a closed pipe is no failure.
  await writer.write(new TextEncoder().encode('{"hook_event_name":"UserPromptSubmit"}'))
    .catch(() => {});
  await writer.close().catch(() => {});
  const done = await out.output();
  const text = new TextDecoder().decode(done.stdout);
  const flag = text.split("\n").find((l) => l.startsWith("--allow-read="));
  assert.ok(flag, `no --allow-read in ${text}${new TextDecoder().decode(done.stderr)}`);
  return flag.slice("--allow-read=".length).split(",");
}

/** A `$HOME` and a project in `dir` for {@linkcode launcherReadGrant}, and hostile git dirs. */
export interface GitdirWorld {
  /** `<dir>/home`, holding the data dir `.kiro-learn`. */
  home: string;
  /** `<dir>/srv/app`, outside `$HOME`, with a `src` folder. */
  project: string;
  /** What a hook in the project may read: the data dir, `$HOME`, the project. */
  expected: string[];
  /**
   * `.git` file targets that name the whole disk or no git dir: spelled as `/`, through `..`, a
   * symlink to `/` named like a bare repository, and a plain folder.
   */
  hostile: string[];
}

/** Makes a {@linkcode GitdirWorld} in `dir` (a canonical, empty folder). */
export async function makeGitdirWorld(dir: string): Promise<GitdirWorld> {
  const home = `${dir}/home`;
  await Deno.mkdir(`${home}/.kiro-learn`, { recursive: true });
  const project = `${dir}/srv/app`;
  await Deno.mkdir(`${project}/src`, { recursive: true });
  await Deno.symlink("/", `${dir}/disk.git`);
  await Deno.mkdir(`${dir}/etc-like`);
  const depth = project.split("/").length;
  return {
    home,
    project,
    expected: [`${home}/.kiro-learn`, home, project],
    hostile: [
      "/",
      "/.",
      "//",
      "/etc/..",
      "/etc",
      "../".repeat(depth + 2),
      `${dir}/disk.git`,
      `${dir}/disk.git/worktrees/x`,
      `${dir}/etc-like`,
    ],
  };
}
