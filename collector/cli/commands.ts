/**
 * `status`, `search`, `forget`: the read and curate commands.
 *
 * @module
 */
import { resolveProject } from "@kiro-learn/core/project";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import type { Settings } from "@kiro-learn/core/settings";
import { callCollector, collectorUrl, health } from "./client.ts";

/** Prints status; returns true when the collector is running. */
export async function status(
  settings: Settings,
  options: { print?: (line: string) => void; json?: boolean } = {},
): Promise<boolean> {
  const print = options.print ?? console.log;
  const h = await health(settings);
  const lines: Record<string, unknown> = {
    status: h ? "running" : "stopped",
    pid: h?.pid ?? null,
    url: collectorUrl(settings),
    port: settings.collector.port,
    data_dir: settings.dataDir,
    version: h?.version ?? null,
  };
  if (h) {
    const stats = await callCollector(settings, "/v1/stats");
    if (stats.status === 200) {
      const s = stats.body as Record<string, unknown> & {
        queue?: { rows: number; bytes: number }[];
      };
      lines.events = s.total_events;
      lines.memories = s.total_memories;
      lines.projects = s.total_projects;
      lines.queued_events = (s.queue ?? []).reduce((n, q) => n + q.rows, 0);
      const extraction = s.extraction as
        | { strategy?: { effective?: string }; llm_today?: Record<string, unknown> }
        | undefined;
      if (extraction?.strategy) lines.extraction = extraction.strategy.effective;
      if (extraction?.llm_today) lines.llm_today = extraction.llm_today;
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

/** Searches the current project's memory and prints ranked records. */
export async function search(
  settings: Settings,
  query: string,
  options: { namespace?: string; limit?: number; json?: boolean; print?: (line: string) => void } =
    {},
): Promise<number> {
  const print = options.print ?? console.log;
  const namespace = options.namespace ?? resolveProject(Deno.cwd()).namespace;
  const params = new URLSearchParams({
    namespace,
    query,
    limit: String(options.limit ?? 10),
  });
  const res = await callCollector(settings, `/v1/memories/search?${params}`);
  if (res.status !== 200) {
    print(`search failed (${res.status}): ${JSON.stringify(res.body)}`);
    return 1;
  }
  const records = res.body as MemoryRecord[];
  if (options.json) {
    print(JSON.stringify(records, null, 2));
    return 0;
  }
  if (records.length === 0) {
    print(`no memories match "${query}" in this project`);
    return 0;
  }
  records.forEach((r, i) => {
    print(`${i + 1}. [${r.observation_type}] ${r.title}  (${r.record_id})`);
    print(`   ${r.summary.split("\n")[0].slice(0, 160)}`);
    if (r.files_touched.length > 0) print(`   files: ${r.files_touched.slice(0, 5).join(", ")}`);
  });
  return 0;
}

/** Forgets one record (and everything derived from it). */
export async function forget(
  settings: Settings,
  recordId: string,
  options: { print?: (line: string) => void } = {},
): Promise<number> {
  const print = options.print ?? console.log;
  const res = await callCollector(settings, `/v1/memories/${encodeURIComponent(recordId)}`, {
    method: "DELETE",
  });
  if (res.status === 200) {
    print(`forgot ${recordId}`);
    return 0;
  }
  if (res.status === 404) {
    print(`no memory ${recordId}: check the id with \`kiro-learn search\``);
    return 1;
  }
  print(`forget failed (${res.status}): ${JSON.stringify(res.body)}`);
  return 1;
}
