/**
 * `kiro-learn import claude-code`: past Claude Code sessions of a project, from the transcripts
 * Claude Code keeps in `<CLAUDE_CONFIG_DIR or ~/.claude>/projects/<session folder, see
 * transcriptsFolderName>/`, for sessions run at the project's root or in any folder inside it. The
 * conversion runs in the shims' own entry (`shims/claude_import.ts`), with the shims'
 * permissions plus read of that one folder, so an imported event is what a hook would have sent.
 *
 * @module
 */
import { ROUTES } from "@kiro-learn/core/api";
import {
  CLAUDE_IMPORT_ENTRY,
  SHIM_RUN_FLAGS,
  shimPermissionFlags,
  shimPermissions,
} from "@kiro-learn/core/launch";
import type { Settings } from "@kiro-learn/core/settings";
import { join } from "@kiro-learn/core/path";
import { clientFor } from "./_client.ts";
import { isOwnAgentSession } from "./_own_sessions.ts";

/** Claude Code shortens a folder name longer than this and adds a hash of the path. */
const MAX_FOLDER_NAME = 200;

// Claude Code's string hash (Java's: h * 31 + code unit, as a 32-bit integer), in base 36.
function pathHash(path: string): string {
  let h = 0;
  for (let i = 0; i < path.length; i++) h = (h << 5) - h + path.charCodeAt(i) | 0;
  return Math.abs(h).toString(36);
}

/**
 * The name Claude Code gives the transcripts folder of a session run in `cwd`: every character
 * but ASCII letters and digits as `-`, and past 200 characters the first 200 and `-<hash of
 * the path>` (Claude Code 2.1.332, read in its own code).
 */
export function transcriptsFolderName(cwd: string): string {
  const name = cwd.replace(/[^a-zA-Z0-9]/g, "-");
  return name.length <= MAX_FOLDER_NAME
    ? name
    : `${name.slice(0, MAX_FOLDER_NAME)}-${pathHash(cwd)}`;
}

/** Claude Code's configuration folder: `CLAUDE_CONFIG_DIR`, else `~/.claude` (as the hooks'). */
export function claudeConfigDir(home: string, env: { CLAUDE_CONFIG_DIR?: string } = {}): string {
  const dir = env.CLAUDE_CONFIG_DIR?.trim();
  return (dir ? dir : join(home, ".claude")).normalize("NFC");
}

/** The folder Claude Code keeps the transcripts of sessions run at `projectRoot` in. */
export function transcriptsDir(configDir: string, projectRoot: string): string {
  return join(configDir, "projects", transcriptsFolderName(projectRoot));
}

/** The working directory a transcript's sessions ran in (its first line naming one). */
async function transcriptCwd(file: string): Promise<string | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch {
    return null;
  }
  for (const line of text.split("\n")) {
    if (!line.includes('"cwd"')) continue;
    try {
      const cwd = JSON.parse(line)?.cwd;
      if (typeof cwd === "string" && cwd !== "") return cwd;
    } catch {
      // Another line will name it.
    }
  }
  return null;
}

/**
 * The transcripts of every session of the project at `projectRoot`: those run at its root and
 * those run in a folder inside it (each folder has its transcripts folder, whose name starts
 * like the root's), each kept only when the session's own working directory belongs to this
 * project (a sibling `app-old` of `app` has a name starting the same way; a nested repository
 * is a project of its own).
 */
export async function projectTranscripts(
  configDir: string,
  projectRoot: string,
  options: { belongs: (cwd: string) => boolean },
): Promise<{ dirs: string[]; files: string[] }> {
  const projects = join(configDir, "projects");
  const own = transcriptsFolderName(projectRoot);
  const prefix = own.slice(0, MAX_FOLDER_NAME);
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(projects)];
  } catch {
    return { dirs: [], files: [] };
  }
  const dirs: string[] = [];
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory || !entry.name.startsWith(prefix)) continue;
    const dir = join(projects, entry.name);
    let found: string[];
    try {
      found = [...Deno.readDirSync(dir)]
        .filter((e) => e.isFile && e.name.endsWith(".jsonl"))
        .map((e) => join(dir, e.name))
        .sort();
    } catch {
      continue;
    }
    const taken: string[] = [];
    for (const file of found) {
      const cwd = entry.name === own ? projectRoot : await transcriptCwd(file);
      if (cwd !== null && (cwd === projectRoot || options.belongs(cwd))) taken.push(file);
    }
    if (taken.length > 0) {
      dirs.push(dir);
      files.push(...taken);
    }
  }
  return { dirs, files };
}

/** What importing a project's transcripts did. */
export interface ClaudeImportReport {
  /** The transcripts folder of the project's root (others, of its subfolders, in `dirs`). */
  dir: string;
  /** Every transcripts folder read. */
  dirs: string[];
  /** Sessions (transcript files) read. */
  sessions: number;
  /** Events the collector took (an event imported before is taken again, stored once). */
  events: number;
  /** Of those, the ones stored now. */
  added: number;
  /** Of those, the ones it had: imported before, or recorded by the hooks. */
  present: number;
  /** Events it did not take, and the first reason. */
  failed: number;
  /** The first failure's message. */
  error?: string;
  /** Transcript lines skipped, by type, over all sessions. */
  skipped: Record<string, number>;
  /** Sessions of kiro-learn's own LLM agents found in the folder, left out (never imported). */
  agentSessions: number;
}

/** Imports every transcript of the project at `projectRoot`; progress goes to `progress`. */
export async function importClaudeCode(
  settings: Settings,
  projectRoot: string,
  options: {
    /** Claude Code's configuration folder (see {@linkcode claudeConfigDir}). */
    configDir: string;
    /** Whether a session's working directory belongs to this project. */
    belongs: (cwd: string) => boolean;
    progress?: (line: string) => void;
  },
): Promise<ClaudeImportReport> {
  const dir = transcriptsDir(options.configDir, projectRoot);
  const found = await projectTranscripts(options.configDir, projectRoot, options);
  const { dirs } = found;
  const report: ClaudeImportReport = {
    dir,
    dirs,
    sessions: 0,
    events: 0,
    added: 0,
    present: 0,
    failed: 0,
    skipped: {},
    agentSessions: 0,
  };
  const own = await ownAgentSessions(found.files, settings.paths.agentWorkdir);
  report.agentSessions = own.size;
  const files = found.files.filter((file) => !own.has(file));
  if (files.length === 0) return report;
  if (!(await clientFor(settings).health())) {
    // Fails with the client's "not running … start it with" message.
    await clientFor(settings).request("GET", ROUTES.stats);
  }
  const permissions = shimPermissions(settings, { projectRoots: [projectRoot] });
  const flags = shimPermissionFlags({ ...permissions, read: [...permissions.read, ...dirs] });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...SHIM_RUN_FLAGS, ...flags, CLAUDE_IMPORT_ENTRY, ...files],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
    env: { KIRO_LEARN_HOME: settings.dataDir },
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
        added?: number;
        failed: number;
        error?: string;
        skipped: Record<string, number>;
      };
      report.sessions++;
      report.events += one.posted;
      report.added += one.added ?? one.posted;
      report.present += one.posted - (one.added ?? one.posted);
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
      `importing ${dirs.join(", ")} stopped after ${report.sessions} of ${files.length} ` +
        `sessions (exit ${code}); run it again: sessions already imported are not added twice`,
    );
  }
  return report;
}

/** The transcripts among `files` that are sessions of kiro-learn's own agents. */
async function ownAgentSessions(files: string[], agentWorkdir: string): Promise<Set<string>> {
  const own = new Set<string>();
  for (const file of files) {
    // A transcript that cannot be read here is left to the import, which reports it.
    const ours = await isOwnAgentSession(file, { agentWorkdir }).catch(() => false);
    if (ours) own.add(file);
  }
  return own;
}
