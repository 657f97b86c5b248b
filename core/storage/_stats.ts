/**
 * Counts and per-project summaries for status and the viewer.
 *
 * @module
 */
import type { ProjectSummary, Stats } from "./types.ts";
import type { Connection } from "./_connection.ts";

/** See `Storage.stats`. */
export async function stats(
  c: Connection,
  options: { namespace?: string } = {},
): Promise<Stats> {
  await Promise.resolve();
  const ns = options.namespace;
  const scoped = ns !== undefined;
  const nsClause = scoped ? "WHERE namespace = ?" : "";
  const args = scoped ? [ns] : [];
  const count = (sql: string) => (c.stmt(sql).get(...args) as { n: number }).n;
  const groups = (sql: string) => {
    const out: Record<string, number> = {};
    for (const row of c.stmt(sql).all(...args) as { k: string; n: number }[]) {
      out[row.k] = row.n;
    }
    return out;
  };
  const projects = listProjects(c);
  return {
    total_events: count(`SELECT count(*) AS n FROM events ${nsClause}`),
    total_memories: count(`SELECT count(*) AS n FROM memory_records ${nsClause}`),
    total_projects: scoped ? 1 : projects.length,
    total_concepts: count(
      `SELECT count(DISTINCT lower(j.value)) AS n FROM memory_records, json_each(concepts_json) j
      ${nsClause}`,
    ),
    observation_types: groups(
      `SELECT observation_type AS k, count(*) AS n FROM memory_records ${nsClause} GROUP BY k`,
    ),
    event_kinds: groups(`SELECT kind AS k, count(*) AS n FROM events ${nsClause} GROUP BY k`),
    event_agents: groups(
      `SELECT surface AS k, count(*) AS n FROM events ${nsClause} GROUP BY k ORDER BY k`,
    ),
    embeddings_present: count(
      `SELECT count(*) AS n FROM memory_records ${
        scoped ? "WHERE namespace = ? AND" : "WHERE"
      } embedding IS NOT NULL`,
    ),
    embeddings_missing: count(
      `SELECT count(*) AS n FROM memory_records ${
        scoped ? "WHERE namespace = ? AND" : "WHERE"
      } embedding IS NULL`,
    ),
    projects,
  };
}

/** Every project with its counts and newest activity. */
export function listProjects(c: Connection): ProjectSummary[] {
  const rows = c.stmt(
    `SELECT ns.namespace,
      (SELECT project_path FROM events e WHERE e.namespace = ns.namespace
        AND project_path IS NOT NULL ORDER BY valid_time DESC LIMIT 1) AS project_path,
      (SELECT count(*) FROM events e WHERE e.namespace = ns.namespace) AS event_count,
      (SELECT count(*) FROM memory_records m WHERE m.namespace = ns.namespace) AS memory_count
    FROM (SELECT DISTINCT namespace FROM events
      UNION SELECT DISTINCT namespace FROM memory_records) ns
    ORDER BY event_count DESC, ns.namespace`,
  ).all() as {
    namespace: string;
    project_path: string | null;
    event_count: number;
    memory_count: number;
  }[];
  return rows.map((row) => {
    const projectId = row.namespace.split("/").at(-2) ?? row.namespace;
    return {
      namespace: row.namespace,
      project_id: projectId,
      display_name: displayName(row.project_path, projectId, c.home),
      event_count: row.event_count,
      memory_count: row.memory_count,
    };
  });
}

// A project path as status shows it: `~/…` under the home, `~ (global)` for the home itself.
function displayName(path: string | null, projectId: string, home?: string): string {
  if (!path) return projectId.slice(0, 12);
  if (home && path === home) return "~ (global)";
  if (home && path.startsWith(home + "/")) return "~" + path.slice(home.length);
  return path;
}
