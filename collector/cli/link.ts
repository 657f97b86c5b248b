/**
 * `kiro-learn link`: puts a `kiro-learn` command on PATH, a small launcher in `~/.local/bin`
 * (the XDG place for a user's commands; `--bin DIR` for another) that runs this checkout's CLI
 * with its permissions. After it, `kiro-learn install`, `status`, `search`… work from any folder
 * and act on the project of that folder.
 *
 * Why not `deno install --global`: its script calls `deno` from PATH, which the README's `npx`
 * route does not provide; the launcher names the Deno binary that ran `link`.
 *
 * @module
 */
import { cliLauncherScript } from "@kiro-learn/core/launch";
import { writeFileAtomic } from "@kiro-learn/core/fs";
import { join } from "@kiro-learn/core/path";
import { type Command, stringOption } from "./_command.ts";
import { homeDir } from "./_install_context.ts";

/** What {@linkcode linkCli} did. */
export interface LinkResult {
  /** The launcher's path. */
  path: string;
  /** False when its folder is not on PATH (the user must add it). */
  onPath: boolean;
}

/** Writes the launcher into `binDir` (created if missing), mode 0755. */
export function linkCli(
  binDir: string,
  options: { path?: string; denoPath?: string } = {},
): LinkResult {
  const path = join(binDir, "kiro-learn");
  Deno.mkdirSync(binDir, { recursive: true });
  writeFileAtomic(path, cliLauncherScript({ denoPath: options.denoPath }), { mode: 0o755 });
  const dirs = (options.path ?? Deno.env.get("PATH") ?? "").split(":").map((d) =>
    d.replace(/\/$/, "")
  );
  return { path, onPath: dirs.includes(binDir.replace(/\/$/, "")) };
}

/** The `link` command. */
export const linkCommand: Command = {
  name: "link",
  usage: "kiro-learn link [--bin DIR]",
  summary: "put a kiro-learn command on PATH (a launcher in ~/.local/bin)",
  options: { bin: { type: "string" } },
  run: (args) => {
    const binDir = stringOption(args, "bin") ?? join(homeDir(), ".local", "bin");
    const result = linkCli(binDir);
    console.log(`wrote ${result.path}: runs this checkout's kiro-learn from any folder`);
    if (!result.onPath) {
      console.log(
        `${binDir} is not on your PATH: add \`export PATH="${binDir}:$PATH"\` to your shell's ` +
          "profile (~/.profile, ~/.bashrc or ~/.zshrc) and open a new terminal",
      );
    }
    return Promise.resolve(0);
  },
};
