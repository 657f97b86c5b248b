/**
 * `kiro-learn import claude-code`: past Claude Code sessions of a project, from the transcripts
 * Claude Code keeps in `~/.claude/projects/<project path, non-alphanumerics as "-">/`. The
 * conversion runs in the shims' own entry (`shims/claude_import.ts`), with the shims'
 * permissions plus read of that one folder, so an imported event is what a hook would have sent.
 *
 * @module
 */
import { ROUTES } from "@kiro-learn/core/api";
import {
  CLAUDE_IMPORT_ENTRY,
  DENO_ENV,
  SHIM_RUN_FLAGS,
  shimPermissionFlags,
  shimPermissions,
} from "@kiro-learn/core/launch";
import type { Settings } from "@kiro-learn/core/settings";
import { join } from "@kiro-learn/core/path";
import { clientFor } from "./_client.ts";

/** The folder Claude Code keeps a project's transcripts in. */
export function transcriptsDir(home: string, projectRoot: string): string {
  return join(home, ".claude", "projects", projectRoot.replace(/[^a-zA-Z0-9]/g, "-"));
}

/** What importing a project's transcripts did. */
export interface ClaudeImportReport {
  /** The transcripts folder read. */
  dir: string;
  /** Sessions (transcript files) read. */
  sessions: number;
  /** Events the collector took (an event imported before is taken again, stored once). */
  events: number;
  /** Events it did not take, and the first reason. */
  failed: number;
  /** The first failure's message. */
  error?: string;
  /** Transcript lines skipped, by type, over all sessions. */
  skipped: Record<string, number>;
}

/** Imports every transcript of the project at `projectRoot`; progress goes to `progress`. */
export async function importClaudeCode(
  settings: Settings,
  projectRoot: string,
  options: { home: string; progress?: (line: string) => void },
): Promise<ClaudeImportReport> {
  const dir = transcriptsDir(options.home, projectRoot);
  const report: ClaudeImportReport = { dir, sessions: 0, events: 0, failed: 0, skipped: {} };
  let files: string[];
  try {
    files = [...Deno.readDirSync(dir)]
      .filter((e) => e.isFile && e.name.endsWith(".jsonl"))
      .map((e) => join(dir, e.name))
      .sort();
  } catch {
    return report;
  }
  if (!(await clientFor(settings).health())) {
    // Fails with the client's "not running … start it with" message.
    await clientFor(settings).request("GET", ROUTES.stats);
  }
  const permissions = shimPermissions(settings, { projectRoots: [projectRoot] });
  const flags = shimPermissionFlags({ ...permissions, read: [...permissions.read, dir] });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...SHIM_RUN_FLAGS, ...flags, CLAUDE_IMPORT_ENTRY, ...files],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
    env: { ...DENO_ENV, KIRO_LEARN_HOME: settings.dataDir },
  }).spawn();
  let buffered = "";
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      const one = JSON.parse(line) as {
        posted: number;
        failed: number;
        error?: string;
        skipped: Record<string, number>;
      };
      report.sessions++;
      report.events += one.posted;
      report.failed += one.failed;
      report.error ??= one.error;
      for (const [type, n] of Object.entries(one.skipped)) {
        report.skipped[type] = (report.skipped[type] ?? 0) + n;
      }
      options.progress?.(`importing Claude Code sessions: ${report.sessions}/${files.length}`);
    }
  }
  const { code } = await child.status;
  if (code !== 0 && report.sessions < files.length) {
    throw new Error(
      `importing ${dir} stopped after ${report.sessions} of ${files.length} sessions ` +
        `(exit ${code}); run it again: sessions already imported are not added twice`,
    );
  }
  return report;
}
