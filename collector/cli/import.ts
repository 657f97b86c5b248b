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
import { cliArgv, denoEnvAssignments, shellQuote } from "@kiro-learn/core/launch";
import { resolveProject } from "@kiro-learn/core/project";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import { clientFor, projectNamespace } from "./_client.ts";
import { type Command, flag, invocationDir, stringOption, UsageError } from "./_command.ts";
import { commitRecord, gitLogArgs, parseGitLog } from "./git_log.ts";
import { importClaudeCode } from "./_claude_transcripts.ts";
import { importNodeKiroLearn } from "./_node_kiro_learn.ts";
import { emptyCounts, type SaveCounts, tally } from "./_save_counts.ts";
import { homeDir } from "./_install_context.ts";

/** What an import did. */
export interface ImportReport extends SaveCounts {
  /** Seconds it took. */
  seconds: number;
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
    `KIRO_LEARN_HOME=${shellQuote(options.dataDir)} ${denoEnvAssignments()} ${
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
  return (line) => Deno.stderr.writeSync(encoder.encode(tty ? `\r${line}\u001b[K` : `${line}\n`));
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
  // The repository's identity is its first commit(s): the same for every clone of it.
  const roots = await git(["-C", root, "rev-list", "--max-parents=0", "HEAD"]);
  if (!roots.ok) throw new UsageError(`${root} has no commits yet`);
  const repository = roots.out.split("\n").sort().join(",");
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
  const child = new Deno.Command("git", {
    args: gitLogArgs(root, options),
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const inFlight = new Set<Promise<void>>();
  const limit = options.concurrency ?? 8;
  try {
    for await (
      const commit of parseGitLog(child.stdout.pipeThrough(new TextDecoderStream()))
    ) {
      const task = save(commitRecord(commit, { namespace, repository })).finally(() =>
        inFlight.delete(task)
      );
      inFlight.add(task);
      if (inFlight.size >= limit) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  } finally {
    try {
      child.kill();
    } catch {
      // Already exited.
    }
    await child.status;
    await child.stderr.cancel().catch(() => {});
  }
  show(true);
  report.seconds = Math.round((performance.now() - started) / 100) / 10;
  return report;
}

/**
 * Reads an export (`kiro-learn export`'s JSON Lines) back: each record is saved as it was (id,
 * namespace, provenance); one already present is counted, not changed; a bad line is reported
 * with its number and skipped, never the end of the import.
 */
export async function importJsonl(settings: Settings, file: string): Promise<ImportReport> {
  const started = performance.now();
  const client = clientFor(settings);
  const report: ImportReport = { ...emptyCounts(), seconds: 0 };
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
    if (parsed.type === "kiro-learn-export") continue;
    if (parsed.type !== "record") {
      report.rejected.push({ id: `line ${i + 1}`, reason: `unknown line type ${parsed.type}` });
      continue;
    }
    tally(report, await client.request("POST", ROUTES.memories, { body: parsed.record }), {
      id: `line ${i + 1}`,
    });
  }
  report.seconds = Math.round((performance.now() - started) / 100) / 10;
  return report;
}

/** The `import` command. */
export const importCommand: Command = {
  name: "import",
  usage:
    "kiro-learn import git [DIR] [--since DATE] [--max N] [--git-hook] [--json] | import claude-code | import kiro-learn [PATH] | import jsonl FILE",
  summary:
    "memory from a git history, past Claude Code sessions or a Node kiro-learn database, or an export (idempotent)",
  options: {
    since: { type: "string" },
    max: { type: "string" },
    json: { type: "boolean" },
    "git-hook": { type: "boolean" },
  },
  run: async (args) => {
    const [source, dirArg, ...extra] = args.positionals;
    if (source === "jsonl") {
      if (dirArg === undefined || extra.length > 0) throw new UsageError("import jsonl needs FILE");
      const report = await importJsonl(loadSettings(), dirArg);
      printReport(dirArg, report, flag(args, "json"));
      return report.rejected.length > 0 && report.added === 0 && report.present === 0 ? 1 : 0;
    }
    if (source === "kiro-learn") {
      if (extra.length > 0) throw new UsageError("import kiro-learn takes one PATH");
      const path = dirArg ?? `${homeDir()}/.kiro-learn/kiro-learn.db`;
      const report = await importNodeKiroLearn(loadSettings(), path);
      if (flag(args, "json")) {
        console.log(JSON.stringify(report, null, 2));
      } else {
        for (const [what, c] of Object.entries(report)) {
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
      const report = await importClaudeCode(loadSettings(), root, {
        home: homeDir(),
        progress: Deno.stderr.isTerminal()
          ? (line) => Deno.stderr.writeSync(new TextEncoder().encode(`\r${line}`))
          : undefined,
      });
      if (flag(args, "json")) {
        console.log(JSON.stringify(report, null, 2));
      } else if (report.sessions === 0) {
        console.log(`no Claude Code sessions of ${root} in ${report.dir}`);
      } else {
        const skipped = Object.entries(report.skipped).map(([t, n]) => `${n} ${t}`).join(", ");
        console.log(
          `imported ${report.sessions} Claude Code session(s) of ${root}: ${report.events} ` +
            `events, ${report.failed} not taken${report.error ? ` (${report.error})` : ""}` +
            (skipped ? `; transcript lines skipped: ${skipped}` : ""),
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
    const dir = dirArg ?? resolveProject(invocationDir()).project_root;
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
  for (const r of report.rejected.slice(0, 10)) console.log(`  rejected ${r.id}: ${r.reason}`);
}
