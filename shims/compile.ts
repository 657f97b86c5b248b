/**
 * `deno task compile`: builds each shim into a self-contained binary in `shims/bin/`, with the
 * shim's narrow permissions baked in (so the binary needs no flags and starts without
 * resolving modules).
 *
 * `deno compile` needs `denort`, a runtime binary it downloads from outside; where that cannot
 * be fetched (this project's machines), compiling fails and says so, and the installer keeps
 * using `deno run` of each entry (see `shimCommand` in `@kiro-learn/core/launch`), which works the same, only a little
 * slower to start. A local `denort` can be named with the `DENORT_BIN` environment variable.
 *
 * Usage: `deno task compile [--dry-run]` (`--dry-run` prints the commands and runs nothing).
 *
 * @module
 */
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import {
  DENO_ENV,
  SHIM_BIN_DIR,
  SHIM_ENTRIES,
  shimEntryPath,
  shimPermissionFlags,
  type ShimPermissionOptions,
  shimPermissions,
  type ShimSurface,
  WORKSPACE_CONFIG,
} from "@kiro-learn/core/launch";

/** Options for {@linkcode compileArgs}. */
export interface CompileOptions extends ShimPermissionOptions {
  /** Settings whose host, port and data dir are baked into the binary. */
  settings: Pick<Settings, "dataDir" | "paths" | "collector">;
  /** Output dir (default `shims/bin/`). */
  outDir?: string;
}

/** The `deno` arguments (after the executable) that compile one shim. Pure. */
export function compileArgs(surface: ShimSurface, options: CompileOptions): string[] {
  const outDir = (options.outDir ?? SHIM_BIN_DIR).replace(/\/+$/, "");
  return [
    "compile",
    "--config",
    WORKSPACE_CONFIG,
    ...shimPermissionFlags(shimPermissions(options.settings, options)),
    "--output",
    `${outDir}/${SHIM_ENTRIES[surface].bin}`,
    shimEntryPath(surface),
  ];
}

/** The message printed when `deno compile` cannot fetch its runtime. */
export const NO_DENORT_MESSAGE =
  "deno compile could not build the shims: it needs the denort runtime binary, which it " +
  "downloads from the Deno release server, and that cannot be reached from this machine. " +
  "Nothing is broken: kiro-learn runs the shims with `deno run` instead (about the same, a " +
  "little slower to start). To compile offline, point DENORT_BIN at a local denort binary.";

/** Compiles every shim; returns the process exit code (0 only if every one was built). */
export async function compileAll(
  options: { dryRun?: boolean; settings?: Settings } = {},
): Promise<number> {
  const settings = options.settings ?? loadSettings();
  let failures = 0;
  if (!options.dryRun) await Deno.mkdir(SHIM_BIN_DIR, { recursive: true });
  for (const surface of Object.keys(SHIM_ENTRIES) as ShimSurface[]) {
    const args = compileArgs(surface, { settings });
    if (options.dryRun) {
      console.log(["deno", ...args].join(" "));
      continue;
    }
    const output = await new Deno.Command(Deno.execPath(), {
      args,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env: DENO_ENV,
      // The download can hang on a blocked network; cap it rather than wait forever.
      signal: AbortSignal.timeout(120_000),
    }).output();
    if (output.success) {
      console.log(`compiled ${SHIM_ENTRIES[surface].bin}`);
      continue;
    }
    failures++;
    const stderr = stripAnsi(new TextDecoder().decode(output.stderr));
    console.error(
      `[kiro-learn] compiling ${SHIM_ENTRIES[surface].bin} failed: ${summarize(stderr)}`,
    );
    if (isRuntimeDownloadFailure(stderr)) {
      console.error(`[kiro-learn] ${NO_DENORT_MESSAGE}`);
      // Every shim needs the same runtime: no point trying the others.
      return 1;
    }
  }
  return failures === 0 ? 0 : 1;
}

/** True when `deno compile` failed because it could not download `denort`. */
export function isRuntimeDownloadFailure(stderr: string): boolean {
  return /denort|dl\.deno\.land|error sending request|dns error|Setting up base binary/i.test(
    stderr,
  );
}

/** `error: ...` plus its deepest cause, on one line (backtraces dropped). */
export function summarize(stderr: string): string {
  const lines = stderr.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  const error = lines.find((l) => l.startsWith("error:")) ?? lines[0] ?? "(no output)";
  const causes = lines.filter((l) => /^\d+: /.test(l) && !/^\d+: <unknown>/.test(l));
  const cause = causes.at(-1)?.replace(/^\d+: /, "");
  return cause ? `${error} (${cause})` : error;
}

function stripAnsi(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}

if (import.meta.main) {
  Deno.exit(await compileAll({ dryRun: Deno.args.includes("--dry-run") }));
}
