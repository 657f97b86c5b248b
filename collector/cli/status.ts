/**
 * `kiro-learn status`: is the collector running, and what it holds (counts, queue, extraction,
 * embeddings, spool).
 *
 * @module
 */
import { ROUTES } from "@kiro-learn/core/api";
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import { callCollector, collectorUrl, health } from "./_client.ts";
import { type Command, flag } from "./_command.ts";

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
    const stats = await callCollector(settings, ROUTES.stats);
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

/** The `status` command: exit code 0 when running, 3 when stopped. */
export const statusCommand: Command = {
  name: "status",
  usage: "kiro-learn status [--json]",
  summary: "is it running? pid, port, data dir, counts, queue, spool",
  options: { json: { type: "boolean" } },
  run: async (args) => (await status(loadSettings(), { json: flag(args, "json") })) ? 0 : 3,
};
