/**
 * A project's commit history as memory records: `git log` run as a child process of the CLI
 * (never of the collector, whose sandbox does not run `git`), read as a stream, one record per
 * non-merge commit, bounded however large a commit is.
 *
 * @module
 */
import { derivedUlid, RECORD_ID_PREFIX } from "@kiro-learn/core/ids";
import { sha256 } from "@kiro-learn/core/project";
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

// Field and record separators git never writes in a commit message of its own accord.
const FIELD = "\u001f";
const RECORD = "\u001e";

/** The `git log` arguments that print commits the way {@linkcode parseGitLog} reads them. */
export function gitLogArgs(
  dir: string,
  options: { since?: string; max?: number } = {},
): string[] {
  return [
    "-C",
    dir,
    "-c",
    "core.quotepath=off",
    "log",
    "--no-merges",
    "--no-color",
    "--name-only",
    `--format=${RECORD}%H${FIELD}%an${FIELD}%cI${FIELD}%s${FIELD}%b${FIELD}`,
    ...(options.since ? [`--since=${options.since}`] : []),
    ...(options.max ? [`--max-count=${options.max}`] : []),
  ];
}

/**
 * Splits a stream of `git log` output into commits, without holding more than one commit in
 * memory: a 50,000-commit history is read in constant space.
 */
export async function* parseGitLog(chunks: AsyncIterable<string>): AsyncGenerator<Commit> {
  let buffer = "";
  for await (const chunk of chunks) {
    buffer += chunk;
    let end = buffer.indexOf(RECORD, 1);
    while (end !== -1) {
      const commit = parseCommit(buffer.slice(0, end));
      if (commit) yield commit;
      buffer = buffer.slice(end);
      end = buffer.indexOf(RECORD, 1);
    }
  }
  const last = parseCommit(buffer);
  if (last) yield last;
}

function parseCommit(text: string): Commit | null {
  if (!text.startsWith(RECORD)) return null;
  const [sha, author, date, subject, body, rest] = text.slice(1).split(FIELD);
  if (!sha || rest === undefined || !/^[0-9a-f]{40,64}$/.test(sha)) return null;
  const files = rest.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  return { sha, author, date, subject: subject.trim(), body: body.trim(), files };
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
 * One memory record for a commit, its id derived from the repository and the sha (importing
 * twice gives the same ids), capped to the record limits with a marker.
 */
export function commitRecord(
  commit: Commit,
  options: { namespace: string; repository: string },
): MemoryRecord {
  const seed = sha256(`${options.repository}\n${commit.sha}`);
  const time = Date.parse(commit.date);
  const at = Number.isFinite(time) ? time : 0;
  const id = derivedUlid(at, seed);
  const clean = (s: string) => s.replace(CONTROL_RE, " ");
  const subject = clean(commit.subject) || `commit ${commit.sha.slice(0, 12)}`;
  const body = clean(stripTrailers(commit.body));
  const files = commit.files.slice(0, RECORD_LIMITS.files).map((f) =>
    cap(clean(f), RECORD_LIMITS.file)
  );
  const more = commit.files.length - files.length;
  return {
    record_id: RECORD_ID_PREFIX + id,
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
    source_event_ids: [id],
    created_at: new Date(at).toISOString(),
  };
}
