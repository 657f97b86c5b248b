/**
 * `kiro-learn import git [DIR]`: memory on day one, from what the project already has — one
 * memory record per non-merge commit (subject, body without trailers, changed paths, date, sha).
 *
 * `git` runs here, in the CLI, never in the collector (whose sandbox may not run it). Records go
 * through `POST /v1/memories`, so they are scrubbed like every other input. Ids derive from the
 * repository and the sha, so a second import adds only new commits, and an interrupted one is
 * resumed by running it again.
 *
 * @module
 */
import { ROUTES } from "@kiro-learn/core/api";
import { cliArgv, shellQuote } from "@kiro-learn/core/launch";
import {
  buildNamespace,
  canonicalRecordId,
  currentActor,
  projectIdFromNamespace,
  resolveProject,
} from "@kiro-learn/core/project";
import { type MemoryRecord, MemoryRecordSchema } from "@kiro-learn/core/schemas";
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import { terminalSafe } from "@kiro-learn/core/terminal";
import { clientFor, projectNamespace } from "./_client.ts";
import {
  type Command,
  flag,
  invocationDir,
  stringOption,
  UsageError,
  userPath,
} from "./_command.ts";
import { commitMarker, commitRecord, gitLogArgs, parseGitLog } from "./git_log.ts";
import { claudeConfigDir, importClaudeCode } from "./_claude_transcripts.ts";
import { importNodeKiroLearn } from "./_node_kiro_learn.ts";
import { emptyCounts, type SaveCounts, tally } from "./_save_counts.ts";
import { homeDir } from "./_install_context.ts";
import { EXPORT_TYPE } from "./export.ts";

/** What an import did. */
export interface ImportReport extends SaveCounts {
  /** Seconds it took. */
  seconds: number;
  /**
   * Commits at a shallow clone's boundary, left for later: their parents are not in the clone,
   * so git shows every file of the tree as their change.
   */
  shallow?: number;
}

/** Options of {@linkcode importGit}. */
export interface ImportGitOptions {
  /** Only commits after this date (anything `git log --since` takes). */
  since?: string;
  /** At most this many commits, newest first. */
  max?: number;
  /** Where progress goes (default stderr, rewritten in place on a terminal). */
  progress?: (line: string) => void;
  /** Requests in flight at once (default 8). */
  concurrency?: number;
}

async function git(args: string[]): Promise<{ ok: boolean; out: string; err: string }> {
  try {
    const out = await new Deno.Command("git", { args, stdout: "piped", stderr: "piped" }).output();
    const d = new TextDecoder();
    return { ok: out.success, out: d.decode(out.stdout).trim(), err: d.decode(out.stderr).trim() };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Error("git is not installed (or not on PATH): install git to import a history");
    }
    throw error;
  }
}

/**
 * Whether a Claude Code session run in `cwd` belongs to the project at `root`: the folder's
 * project is that one (a nested repository is a project of its own), or, for a folder gone
 * since, it lies inside the root.
 */
export function sessionBelongs(cwd: string, root: string): boolean {
  try {
    Deno.statSync(cwd);
  } catch {
    return cwd.startsWith(root.endsWith("/") ? root : `${root}/`);
  }
  return resolveProject(cwd).project_root === root;
}

/**
 * The commits at the boundary of a shallow clone (`.git/shallow`): importing one now would
 * store the whole tree as its change, and `git fetch --unshallow` would not correct it (the
 * commit is already present by then). They are left out until their parents are here.
 */
async function shallowBoundary(root: string): Promise<Set<string>> {
  const path = await git([
    "-C",
    root,
    "rev-parse",
    "--path-format=absolute",
    "--git-path",
    "shallow",
  ]);
  if (!path.ok) return new Set();
  try {
    return new Set((await Deno.readTextFile(path.out)).split("\n").filter((l) => l !== ""));
  } catch {
    return new Set(); // Not shallow.
  }
}

/** `git log` itself failed (not our parsing): the import's exit is non-zero. */
export class GitLogError extends Error {}

/**
 * Refuses a `--since` that neither JavaScript nor git reads as a date: git takes any text and
 * reads what it cannot parse as "now", which would import nothing and say nothing.
 */
async function checkSince(root: string, since: string): Promise<void> {
  if (Number.isFinite(Date.parse(since))) return;
  const parsed = await git(["-C", root, "rev-parse", `--since=${since}`]);
  const age = Number(/--max-age=(\d+)/.exec(parsed.out)?.[1]);
  const now = Date.now() / 1000;
  if (!parsed.ok || !Number.isFinite(age) || (age >= now - 2 && since.trim() !== "now")) {
    throw new UsageError(
      `--since ${JSON.stringify(since)} is not a date: give one such as 2026-01-31, ` +
        '"2 weeks ago" or "yesterday"',
    );
  }
}

const HOOK_BEGIN = "# >>> kiro-learn: new commits into memory >>>";
const HOOK_END = "# <<< kiro-learn <<<";

/**
 * The post-commit hook text with our block in it: `existing` (another tool's hook) is kept,
 * an older block of ours replaced. The block imports the newest commits in the background, so
 * a commit never waits on it; `import git` is idempotent, so that costs a few requests.
 */
export function postCommitHook(
  existing: string | null,
  options: { command: readonly string[]; dataDir: string },
): string {
  const block = [
    HOOK_BEGIN,
    `KIRO_LEARN_HOME=${shellQuote(options.dataDir)} ${
      options.command.map(shellQuote).join(" ")
    } >/dev/null 2>&1 </dev/null &`,
    HOOK_END,
  ].join("\n");
  if (existing === null || existing.trim() === "") return `#!/bin/sh\n${block}\n`;
  const start = existing.indexOf(HOOK_BEGIN);
  const end = existing.indexOf(HOOK_END);
  if (start >= 0 && end > start) {
    return existing.slice(0, start) + block + existing.slice(end + HOOK_END.length);
  }
  return `${existing.replace(/\n*$/, "\n")}${block}\n`;
}

/** Adds (or refreshes) the post-commit hook of the repository at `root`; returns its path. */
export async function installPostCommitHook(
  root: string,
  options: { dataDir: string },
): Promise<string> {
  const hooks = await git(["-C", root, "rev-parse", "--git-path", "hooks"]);
  if (!hooks.ok) throw new UsageError(`cannot find the git hooks folder of ${root} (${hooks.err})`);
  const dir = hooks.out.startsWith("/") ? hooks.out : `${root}/${hooks.out}`;
  const path = `${dir}/post-commit`;
  let existing: string | null = null;
  try {
    existing = await Deno.readTextFile(path);
  } catch {
    // No hook yet.
  }
  await Deno.mkdir(dir, { recursive: true });
  const command = [...cliArgv(), "import", "git", root, "--max", "20"];
  await Deno.writeTextFile(path, postCommitHook(existing, { command, dataDir: options.dataDir }), {
    mode: 0o755,
  });
  await Deno.chmod(path, 0o755);
  return path;
}

function defaultProgress(): (line: string) => void {
  const tty = Deno.stderr.isTerminal();
  const encoder = new TextEncoder();
  return (line) =>
    Deno.stderr.writeSync(
      encoder.encode(tty ? `\r${terminalSafe(line)}\u001b[K` : `${terminalSafe(line)}\n`),
    );
}

/** Imports the history of the repository at `dir` into its project's memory. */
export async function importGit(
  settings: Settings,
  dir: string,
  options: ImportGitOptions = {},
): Promise<ImportReport> {
  const top = await git(["-C", dir, "rev-parse", "--show-toplevel"]);
  if (!top.ok) throw new UsageError(`${dir} is not inside a git repository (${top.err})`);
  const root = top.out;
  // Identity is the namespace's project and each commit's sha (core/project/record_identity.ts),
  // never the root commits: a shallow clone reports its boundary as a root.
  const head = await git(["-C", root, "rev-parse", "--verify", "-q", "HEAD"]);
  if (!head.ok) throw new UsageError(`${root} has no commits yet`);
  if (options.since !== undefined) await checkSince(root, options.since);
  const boundary = await shallowBoundary(root);
  const count = await git([
    "-C",
    root,
    "rev-list",
    "--no-merges",
    "--count",
    ...(options.since ? [`--since=${options.since}`] : []),
    "HEAD",
  ]);
  const total = Math.min(Number(count.out) || 0, options.max ?? Number.POSITIVE_INFINITY);
  const namespace = await projectNamespace(settings, root);
  const client = clientFor(settings);
  if (!(await client.health())) {
    // Fails with the client's "not running … start it with" message.
    await client.request("GET", ROUTES.stats);
  }
  const progress = options.progress ?? defaultProgress();
  const report: ImportReport = { ...emptyCounts(), seconds: 0 };
  const started = performance.now();
  let seen = 0;
  let lastShown = 0;
  const show = (force = false) => {
    const now = performance.now();
    if (!force && now - lastShown < 250) return;
    lastShown = now;
    const rate = seen / Math.max((now - started) / 1000, 0.001);
    const eta = rate > 0 ? Math.max(0, (total - seen) / rate) : 0;
    progress(
      `importing ${root}: ${seen}/${total} commits, ${Math.round(rate)}/s, ETA ${Math.ceil(eta)} s`,
    );
  };
  const save = async (record: MemoryRecord) => {
    tally(report, await client.request("POST", ROUTES.memories, { body: record }), {
      id: record.record_id,
    });
    seen++;
    show();
  };
  const marker = commitMarker();
  const child = new Deno.Command("git", {
    args: gitLogArgs(root, { ...options, marker }),
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Read beside stdout, so a git that writes much to stderr never blocks on a full pipe.
  const stderr = new Response(child.stderr).text();
  const inFlight = new Set<Promise<void>>();
  const limit = options.concurrency ?? 8;
  let finished = false;
  let status: Deno.CommandStatus;
  let err = "";
  try {
    const commits = parseGitLog(child.stdout.pipeThrough(new TextDecoderStream()), {
      marker,
      onBad: (what) => report.rejected.push({ id: "git log", reason: what }),
    });
    for await (const commit of commits) {
      if (boundary.has(commit.sha)) {
        report.shallow = (report.shallow ?? 0) + 1;
        continue;
      }
      const task = save(commitRecord(commit, { namespace })).finally(() => inFlight.delete(task));
      inFlight.add(task);
      if (inFlight.size >= limit) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    finished = true;
  } finally {
    if (!finished) {
      try {
        child.kill();
      } catch {
        // Already exited.
      }
    }
    status = await child.status;
    err = (await stderr.catch(() => "")).trim();
  }
  if (!status.success) {
    // A missing object, a broken pack: what was read is saved, the rest is not there.
    throw new GitLogError(
      `git log failed in ${root} (exit ${status.code}): ${err || "no message"}. ` +
        `${report.added + report.present} commits were read before it stopped; repair the ` +
        "repository (`git fsck`, or fetch the missing objects) and run the import again: " +
        "commits already imported are not added twice",
    );
  }
  show(true);
  report.seconds = Math.round((performance.now() - started) / 100) / 10;
  return report;
}

/** Options of {@linkcode importJsonl}. */
export interface ImportJsonlOptions {
  /**
   * Keep each record under the user it was exported by. By default every record is re-homed
   * to this machine's user (`/actor/<this user>/…`), keeping its project: the file is being
   * read into this user's memory, and under another name nothing would ever find it.
   */
  keepOwner?: boolean;
  /** This machine's user (default {@linkcode currentActor}). */
  actor?: string;
}

/** What importing an export did, with the records left under other users' names. */
export interface JsonlImportReport extends ImportReport {
  /** Users (namespace actors) other than this one whose records were imported as they were. */
  otherActors: string[];
}

/**
 * Reads an export (`kiro-learn export`'s JSON Lines) back: each record is saved as it was (id,
 * namespace, provenance), but with the id the identity rule gives it (a commit record exported
 * by an older kiro-learn gets its project's id), under this machine's user; one
 * already present is counted, not changed; a bad line is reported with its number and skipped,
 * never the end of the import.
 */
export async function importJsonl(
  settings: Settings,
  file: string,
  options: ImportJsonlOptions = {},
): Promise<JsonlImportReport> {
  const started = performance.now();
  const client = clientFor(settings);
  const report: JsonlImportReport = { ...emptyCounts(), seconds: 0, otherActors: [] };
  const actor = options.actor ?? currentActor();
  const others = new Set<string>();
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${error instanceof Error ? error.message : error}`);
  }
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    let parsed: { type?: unknown; record?: unknown };
    try {
      parsed = JSON.parse(line);
    } catch {
      report.rejected.push({ id: `line ${i + 1}`, reason: "not JSON" });
      continue;
    }
    if (parsed.type === EXPORT_TYPE) continue;
    if (parsed.type !== "record") {
      report.rejected.push({ id: `line ${i + 1}`, reason: `unknown line type ${parsed.type}` });
      continue;
    }
    const record = MemoryRecordSchema.safeParse(parsed.record);
    // An invalid record goes as it is: the collector's 400 names what is wrong with it.
    let body: unknown = parsed.record;
    if (record.success) {
      const projectId = projectIdFromNamespace(record.data.namespace)!;
      const owner = record.data.namespace.split("/")[2];
      const namespace = options.keepOwner
        ? record.data.namespace
        : buildNamespace(actor, projectId);
      if (options.keepOwner && owner !== actor) others.add(owner);
      const moved = { ...record.data, namespace };
      body = { ...moved, record_id: canonicalRecordId(moved) };
    }
    tally(report, await client.request("POST", ROUTES.memories, { body }), {
      id: `line ${i + 1}`,
    });
  }
  report.otherActors = [...others].sort();
  report.seconds = Math.round((performance.now() - started) / 100) / 10;
  return report;
}

/** The `import` command. */
export const importCommand: Command = {
  name: "import",
  usage:
    "kiro-learn import git [DIR] [--since DATE] [--max N] [--git-hook] [--json] | import claude-code | import kiro-learn [PATH] | import jsonl FILE [--keep-owner]",
  summary:
    "memory from a git history, past Claude Code sessions or a Node kiro-learn database, or an export (idempotent)",
  options: {
    since: { type: "string" },
    max: { type: "string" },
    json: { type: "boolean" },
    "git-hook": { type: "boolean" },
    "keep-owner": { type: "boolean" },
  },
  run: async (args) => {
    const [source, dirArg, ...extra] = args.positionals;
    if (source === "jsonl") {
      if (dirArg === undefined || extra.length > 0) throw new UsageError("import jsonl needs FILE");
      const report = await importJsonl(loadSettings(), userPath(dirArg), {
        keepOwner: flag(args, "keep-owner"),
      });
      printReport(dirArg, report, flag(args, "json"));
      if (report.otherActors.length > 0 && !flag(args, "json")) {
        console.log(
          `these records belong to the user(s) ${report.otherActors.join(", ")}, not to ` +
            `${currentActor()} (--keep-owner): this user's searches do not find them`,
        );
      }
      return report.rejected.length > 0 && report.added === 0 && report.present === 0 ? 1 : 0;
    }
    if (source === "kiro-learn") {
      if (extra.length > 0) throw new UsageError("import kiro-learn takes one PATH");
      const path = dirArg === undefined
        ? `${homeDir()}/.kiro-learn/kiro-learn.db`
        : userPath(dirArg);
      const report = await importNodeKiroLearn(loadSettings(), path);
      if (flag(args, "json")) {
        console.log(JSON.stringify(report, null, 2));
      } else {
        for (const what of report.missing) {
          console.log(`no ${what} in ${path} (the database has no ${what} table): none imported`);
        }
        for (const what of ["records", "events"] as const) {
          if (report.missing.includes(what)) continue;
          const c = report[what];
          console.log(
            `imported ${what} of ${path}: ${c.added} added, ${c.present} already present, ` +
              `${c.forgotten} forgotten (not brought back), ${c.rejected.length} rejected`,
          );
          for (const r of c.rejected.slice(0, 10)) console.log(`  rejected ${r.id}: ${r.reason}`);
        }
      }
      const { records, events } = report;
      return records.rejected.length + events.rejected.length > 0 &&
          records.added + records.present + events.added + events.present === 0
        ? 1
        : 0;
    }
    if (source === "claude-code") {
      if (dirArg !== undefined) {
        throw new UsageError("import claude-code takes no folder: use --project DIR");
      }
      const root = resolveProject(invocationDir()).project_root;
      const configDir = claudeConfigDir(homeDir(), {
        CLAUDE_CONFIG_DIR: Deno.env.get("CLAUDE_CONFIG_DIR"),
      });
      try {
        Deno.statSync(configDir);
      } catch {
        throw new UsageError(
          `no Claude Code folder at ${configDir}: if Claude Code keeps its settings elsewhere, ` +
            "set CLAUDE_CONFIG_DIR to that folder (as for Claude Code itself)",
        );
      }
      const report = await importClaudeCode(loadSettings(), root, {
        configDir,
        belongs: (cwd) => sessionBelongs(cwd, root),
        progress: Deno.stderr.isTerminal()
          ? (line) => Deno.stderr.writeSync(new TextEncoder().encode(`\r${terminalSafe(line)}`))
          : undefined,
      });
      if (flag(args, "json")) {
        console.log(JSON.stringify(report, null, 2));
      } else if (report.sessions === 0) {
        console.log(
          `no Claude Code sessions of ${root} (or of a folder inside it) in ` +
            `${configDir}/projects${agentSessions(report)}`,
        );
      } else {
        const skipped = Object.entries(report.skipped).map(([t, n]) => `${n} ${t}`).join(", ");
        console.log(
          `imported ${report.sessions} Claude Code session(s) of ${root}: ${report.added} ` +
            `events added, ${report.present} already present (imported before or recorded ` +
            `by the hooks), ${report.failed} not taken${report.error ? ` (${report.error})` : ""}` +
            (skipped ? `; transcript lines skipped: ${skipped}` : "") + agentSessions(report),
        );
      }
      return report.failed > 0 ? 1 : 0;
    }
    if (source !== "git" || extra.length > 0) {
      throw new UsageError(
        "import needs `git [DIR]` (the project of the current directory by default), " +
          "`claude-code`, `kiro-learn [PATH]` or `jsonl FILE`",
      );
    }
    const rawMax = stringOption(args, "max");
    const max = rawMax === undefined ? undefined : Number(rawMax);
    if (max !== undefined && (!Number.isInteger(max) || max < 1)) {
      throw new UsageError("--max must be a positive integer");
    }
    const dir = dirArg === undefined
      ? resolveProject(invocationDir()).project_root
      : userPath(dirArg);
    if (flag(args, "git-hook")) {
      const top = await git(["-C", dir, "rev-parse", "--show-toplevel"]);
      if (!top.ok) throw new UsageError(`${dir} is not inside a git repository (${top.err})`);
      const hook = await installPostCommitHook(top.out, { dataDir: loadSettings().dataDir });
      console.log(`added the post-commit hook ${hook}: new commits come into memory by themselves`);
    }
    const report = await importGit(loadSettings(), dir, {
      since: stringOption(args, "since"),
      max,
    });
    console.error("");
    printReport(dir, report, flag(args, "json"));
    return report.rejected.length > 0 && report.added === 0 && report.present === 0 ? 1 : 0;
  },
};

function printReport(source: string, report: ImportReport, json: boolean): void {
  if (json) {
    console.log(JSON.stringify(report, null, 2));
    return;
  }
  console.log(
    `imported ${source}: ${report.added} added, ${report.present} already present, ` +
      (report.forgotten > 0 ? `${report.forgotten} forgotten (not brought back), ` : "") +
      `${report.rejected.length} rejected, in ${report.seconds} s`,
  );
  if (report.shallow) {
    console.log(
      `  ${report.shallow} commit(s) at the shallow clone's boundary left out (their changes ` +
        "are not in this clone): `git fetch --unshallow` and import again to add them",
    );
  }
  for (const r of report.rejected.slice(0, 10)) console.log(`  rejected ${r.id}: ${r.reason}`);
}

/** The note on sessions of kiro-learn's own agents an import left out ("" when none). */
function agentSessions(report: { agentSessions: number }): string {
  return report.agentSessions === 0
    ? ""
    : ` (${report.agentSessions} session(s) of kiro-learn's own LLM agents left out)`;
}
