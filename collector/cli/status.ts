/**
 * `kiro-learn status`: is the collector running, and what it holds (counts, queue, extraction,
 * embeddings, spool, team sharing).
 *
 * @module
 */
import { ROUTES } from "@kiro-learn/core/api";
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import { callCollector, collectorUrl, portTaken, probe } from "./_client.ts";
import { type Command, flag } from "./_command.ts";

/** Prints status; returns true when the collector is running. */
export async function status(
  settings: Settings,
  options: { print?: (line: string) => void; json?: boolean } = {},
): Promise<boolean> {
  const print = options.print ?? console.log;
  const found = await probe(settings);
  const h = found.state === "ours" ? found.health : null;
  const lines: Record<string, unknown> = {
    status: h ? "running" : found.state === "foreign" ? "port taken" : "stopped",
    problem: found.state === "foreign" ? portTaken(settings) : null,
    pid: h?.pid ?? null,
    url: collectorUrl(settings),
    port: settings.collector.port,
    data_dir: settings.dataDir,
    version: h?.version ?? null,
  };
  if (h) {
    const stats = await callCollector(settings, ROUTES.stats);
    if (stats.status === 200) {
      const s = stats.body as Record<string, unknown> & {
        queue?: { rows: number; bytes: number }[];
      };
      lines.events = s.total_events;
      lines.memories = s.total_memories;
      lines.projects = s.total_projects;
      // Which agents' hooks are feeding memory: an agent missing here records nothing yet.
      const agents = s.event_agents as Record<string, number> | undefined;
      if (agents) {
        lines.agents = options.json ? agents : Object.entries(agents)
          .map(([agent, n]) => `${agent} ${n} event(s)`).join(", ") || "none yet";
      }
      lines.queued_events = (s.queue ?? []).reduce((n, q) => n + q.rows, 0);
      const extraction = s.extraction as
        | {
          strategy?: { effective?: string };
          llm_today?: Record<string, unknown>;
          projects?: ExtractionProjectState[];
        }
        | undefined;
      if (extraction?.strategy) lines.extraction = extraction.strategy.effective;
      if (extraction?.llm_today) lines.llm_today = extraction.llm_today;
      const names = projectNames(s.projects);
      for (const project of extraction?.projects ?? []) {
        const name = names.get(project.project_id) ?? project.project_id;
        lines[`extraction ${name}`] = options.json ? project : describeProject(project);
      }
      const embedding = s.embedding as { state?: string; model_id?: string; backfill?: unknown };
      if (embedding) {
        lines.embedding = `${embedding.state ?? "?"}${
          embedding.model_id ? ` (${embedding.model_id})` : ""
        }`;
        if (embedding.backfill) lines.backfill = embedding.backfill;
      }
      const spool = s.spool as
        | { files: number; bytes: number; maxBytes: number; dropped: number; filling: boolean }
        | undefined;
      if (spool) {
        lines.spool = `${spool.files} events, ${spool.bytes} of ${spool.maxBytes} bytes` +
          (spool.dropped > 0 ? `, ${spool.dropped} dropped because it was full` : "") +
          (spool.filling ? " (FILLING: start the collector or raise spool.maxBytes)" : "");
      }
      const team = s.team as
        | {
          url: string;
          role: string;
          connected: boolean;
          backlog: number;
          pulled_records: number;
          last_error: string | null;
          last_sync_at: string | null;
          worker_restarts?: number;
        }
        | null
        | undefined;
      if (team) {
        lines.team = options.json ? team : `${team.url} as ${team.role}: ` +
          `${team.connected ? "connected" : "NOT CONNECTED"}, backlog ${team.backlog} ` +
          `change(s) to publish, ${team.pulled_records} record(s) from teammates` +
          (team.last_sync_at ? `, last sync ${team.last_sync_at}` : "") +
          (team.worker_restarts ? `, sync worker restarted ${team.worker_restarts} time(s)` : "") +
          (team.last_error ? `; last error: ${team.last_error}` : "");
      }
    }
  }
  if (options.json) {
    print(JSON.stringify(lines, null, 2));
  } else {
    for (const [key, value] of Object.entries(lines)) {
      if (value === null || value === undefined) continue;
      print(`${key}: ${typeof value === "object" ? JSON.stringify(value) : value}`);
    }
  }
  return h !== null;
}

/** One project's extraction state, as `/v1/stats` reports it. */
interface ExtractionProjectState {
  project_id: string;
  queued_bytes: number;
  running: boolean;
  breaker: string;
  failures: number;
  open_until: string | null;
  last_run: { at: string; ok: boolean; error?: string | null } | null;
  next_attempt_at: string | null;
}

function projectNames(projects: unknown): Map<string, string> {
  const names = new Map<string, string>();
  if (!Array.isArray(projects)) return names;
  for (const p of projects as { project_id?: string; display_name?: string }[]) {
    if (p.project_id && p.display_name) names.set(p.project_id, p.display_name);
  }
  return names;
}

/** `breaker open (3 failures); last run failed at …: <why>; next attempt at …`. */
function describeProject(p: ExtractionProjectState): string {
  const breaker = p.breaker === "half_open" ? "half-open" : p.breaker;
  const parts = [
    `breaker ${breaker}${
      p.failures > 0 ? ` (${p.failures} failure${p.failures === 1 ? "" : "s"} in a row)` : ""
    }`,
  ];
  if (p.running) parts.push("running now");
  if (p.last_run) {
    parts.push(
      p.last_run.ok
        ? `last run ok at ${p.last_run.at}`
        : `last run failed at ${p.last_run.at}: ${p.last_run.error ?? "no reason given"}`,
    );
  }
  parts.push(p.next_attempt_at ? `next attempt at ${p.next_attempt_at}` : "no attempt scheduled");
  return parts.join("; ");
}

/** The `status` command: exit code 0 when running, 3 when stopped (or the port is taken). */
export const statusCommand: Command = {
  name: "status",
  usage: "kiro-learn status [--json]",
  summary: "is it running? pid, port, data dir, counts, queue, spool, extraction breakers, team",
  options: { json: { type: "boolean" } },
  run: async (args) => (await status(loadSettings(), { json: flag(args, "json") })) ? 0 : 3,
};
