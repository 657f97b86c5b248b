/**
 * What a memory's identity is: one rule, used by every route that makes or moves a record whose
 * source is a thing outside kiro-learn (a commit today), so the same source item seen through
 * any route (a hook, `import git`, the post-commit hook, a team pull, an export read back, a
 * fork, a shallow clone later unshallowed, another user name) is stored once per project and
 * always in that project:
 *
 * - **Which project**: the project id of the record's namespace (a remote digest, or a path
 *   digest without a remote). The actor is not part of it: a teammate's import of the same
 *   commit and an export taken to another user name are the same item.
 * - **Which source item**: a commit's full sha. Never the repository's root commits (a shallow
 *   clone reports its boundary as a root) and never the clone's path or origin.
 *
 * The id is `mr_` + a ULID of (the item's time, SHA-256 of kind, project id and item key).
 *
 * @module
 */
import { derivedUlid, RECORD_ID_PREFIX } from "../ids.ts";
import { projectIdFromNamespace } from "./identity.ts";
import { sha256 } from "./sha256.ts";

/** A commit record's id: its project and its sha (see the module doc). */
export function commitRecordId(projectId: string, commit: { sha: string; time: number }): string {
  const seed = sha256(`git-commit\n${projectId}\n${commit.sha.toLowerCase()}`);
  return RECORD_ID_PREFIX + derivedUlid(commit.time, seed);
}

/** How a commit record names its commit: the first fact, `commit <sha> by <author>`. */
export const COMMIT_FACT_RE = /^commit ([0-9a-f]{40}|[0-9a-f]{64}) by /;

/** The record shape the rule reads. */
interface IdentifiedRecord {
  record_id: string;
  namespace: string;
  strategy: string;
  facts: readonly string[];
  created_at: string;
}

/**
 * The id `record` must have by the rule: a commit record's is derived from its namespace's
 * project and its sha; any other record keeps its own (a record made here is its own source).
 */
export function canonicalRecordId(record: IdentifiedRecord): string {
  if (record.strategy !== "git-commit") return record.record_id;
  const sha = COMMIT_FACT_RE.exec(record.facts[0] ?? "")?.[1];
  const projectId = projectIdFromNamespace(record.namespace);
  const time = Date.parse(record.created_at);
  if (sha === undefined || projectId === null || !Number.isFinite(time)) return record.record_id;
  return commitRecordId(projectId, { sha, time });
}
