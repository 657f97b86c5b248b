/**
 * A project's commit history as memory records: `git log` run as a child process of the CLI
 * (never of the collector, whose sandbox does not run `git`), read as a stream, one record per
 * non-merge commit, bounded however large a commit is.
 *
 * @module
 */
import { RECORD_ID_PREFIX } from "@kiro-learn/core/ids";
import { commitRecordId, projectIdFromNamespace } from "@kiro-learn/core/project";
import { type MemoryRecord, RECORD_LIMITS } from "@kiro-learn/core/schemas";

/** One commit, as read from `git log`. */
export interface Commit {
  /** Full sha. */
  sha: string;
  /** Author name. */
  author: string;
  /** Committer date, ISO 8601. */
  date: string;
  /** Subject line. */
  subject: string;
  /** Body without the subject. */
  body: string;
  /** Changed paths. */
  files: string[];
}

/**
 * How commits are told apart in `git log -z` output. Every field and every changed path ends in
 * a NUL, which git never writes inside a message, a name or a path (it refuses a message holding
 * one), so no byte of a message (not `\x1e`, not `\x1f`) can move text into another field. A
 * commit starts with a NUL-terminated token of its own: a random one per run, so no path in the
 * history can pass for it.
 */
export function commitMarker(): string {
  return `kiro-learn-commit-${crypto.randomUUID()}`;
}

/** The `git log` arguments that print commits the way {@linkcode parseGitLog} reads them. */
export function gitLogArgs(
  dir: string,
  options: { since?: string; max?: number; marker: string },
): string[] {
  return [
    "-C",
    dir,
    "-c",
    "core.quotepath=off",
    "log",
    "-z",
    "--no-merges",
    "--no-color",
    "--name-only",
    `--format=${options.marker}%x00%H%x00%an%x00%cI%x00%s%x00%b%x00`,
    ...(options.since ? [`--since=${options.since}`] : []),
    ...(options.max ? [`--max-count=${options.max}`] : []),
  ];
}

/**
 * Splits a stream of `git log` output (see {@linkcode gitLogArgs}) into commits, without holding
 * more than one commit in memory: a 50,000-commit history is read in constant space. A commit
 * whose fields do not read as a commit is reported to `onBad` (with what it held), never
 * dropped in silence.
 */
export async function* parseGitLog(
  chunks: AsyncIterable<string>,
  options: { marker: string; onBad?: (what: string) => void },
): AsyncGenerator<Commit> {
  let buffer = "";
  let tokens: string[] = [];
  const finish = function* (): Generator<Commit> {
    if (tokens.length === 0) return;
    const commit = parseCommit(tokens);
    tokens = [];
    if (commit) yield commit;
  };
  const take = function* (token: string): Generator<Commit> {
    if (token === options.marker) {
      yield* finish();
      tokens = [token];
    } else if (tokens.length > 0) {
      tokens.push(token);
    } else if (token.trim() !== "") {
      options.onBad?.(`text before the first commit: ${JSON.stringify(token.slice(0, 80))}`);
    }
  };
  const parseCommit = (t: string[]): Commit | null => {
    // marker, sha, author, date, subject, body, then the paths (the first after a newline).
    const [, sha, author, date, subject, body, ...paths] = t;
    if (
      body === undefined || !/^[0-9a-f]{40,64}$/.test(sha) || !Number.isFinite(Date.parse(date))
    ) {
      options.onBad?.(`a commit git printed that does not read as one: ${sha?.slice(0, 64)}`);
      return null;
    }
    // git ends the message with an empty token and starts the path list with a newline.
    const named = paths.filter((p) => p !== "");
    const files = named.map((p, i) => i === 0 ? p.replace(/^\n/, "") : p);
    return { sha, author, date, subject: subject.trim(), body: body.trim(), files };
  };
  for await (const chunk of chunks) {
    buffer += chunk;
    let end = buffer.indexOf("\0");
    while (end !== -1) {
      yield* take(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
      end = buffer.indexOf("\0");
    }
  }
  if (buffer !== "") yield* take(buffer);
  yield* finish();
}

// Review and bookkeeping trailers say who, not what or why.
const TRAILER_RE =
  /^(?:Signed-off-by|Reviewed-by|Acked-by|Tested-by|Reported-by|Suggested-by|Co-authored-by|Co-developed-by|Cc|Change-Id|Link|Reviewed-on|Tested-on|Helped-by|Requested-by|Closes|Fixes|Bug|Submitted-at|Patchwork-Id):/i;

/** The body without trailers (Signed-off-by, Change-Id, Fixes, …) and trailing blank lines. */
export function stripTrailers(body: string): string {
  return body.split("\n").filter((line) => !TRAILER_RE.test(line.trim())).join("\n").trim();
}

/** The observation type a commit's subject suggests. */
export function commitType(subject: string): MemoryRecord["observation_type"] {
  const s = subject.toLowerCase();
  if (/^revert\b|\brevert "/.test(s)) return "decision";
  if (/\b(?:fix|fixes|fixed|bug|crash|leak|regression|race|overflow|deadlock|segfault)\b/.test(s)) {
    return "error";
  }
  if (/\b(?:refactor|cleanup|clean up|rename|simplify|deprecate|remove unused)\b/.test(s)) {
    return "pattern";
  }
  return "discovery";
}

const TRUNCATED = " [truncated by kiro-learn]";

function cap(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max - TRUNCATED.length) + TRUNCATED;
}

// Text git shows for a file it thinks is binary, or control bytes a terminal would choke on.
// deno-lint-ignore no-control-regex
const CONTROL_RE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/**
 * One memory record for a commit, its id derived from the namespace's project and the sha (see
 * `commitRecordId`: the same commit gets the same id in a project whichever clone, fork or
 * depth it is read from, and another id in another project), capped to the record limits.
 */
export function commitRecord(commit: Commit, options: { namespace: string }): MemoryRecord {
  const projectId = projectIdFromNamespace(options.namespace);
  if (projectId === null) throw new TypeError(`not a namespace: ${options.namespace}`);
  const time = Date.parse(commit.date);
  const at = Number.isFinite(time) ? time : 0;
  const recordId = commitRecordId(projectId, { sha: commit.sha, time: at });
  const clean = (s: string) => s.replace(CONTROL_RE, " ");
  const subject = clean(commit.subject) || `commit ${commit.sha.slice(0, 12)}`;
  const body = clean(stripTrailers(commit.body));
  const files = commit.files.slice(0, RECORD_LIMITS.files).map((f) =>
    cap(clean(f), RECORD_LIMITS.file)
  );
  const more = commit.files.length - files.length;
  return {
    record_id: recordId,
    namespace: options.namespace,
    strategy: "git-commit",
    title: cap(subject, RECORD_LIMITS.title),
    summary: cap(body || subject, RECORD_LIMITS.summary),
    facts: [
      cap(`commit ${commit.sha} by ${clean(commit.author)}`, RECORD_LIMITS.fact),
      ...(more > 0 ? [`and ${more} more changed files`] : []),
    ],
    concepts: [],
    files_touched: files,
    observation_type: commitType(subject),
    // The commit itself is the source; its id stands where an event id would.
    source_event_ids: [recordId.slice(RECORD_ID_PREFIX.length)],
    created_at: new Date(at).toISOString(),
  };
}
