/**
 * `kiro-learn export`: a project's memory (or every project's) as JSON Lines, for a backup or a
 * move to another machine; `kiro-learn import jsonl FILE` reads it back.
 *
 * The format, one JSON object per line:
 * - first `{"type": "kiro-learn-export", "version": 1, "exported_at": "…"}`;
 * - then one `{"type": "record", "record": <memory record>}` per record, newest first, exactly as
 *   the API serves it (provenance included: `source_event_ids`, `strategy`, facts such as a
 *   commit's sha).
 * Forgotten records are deleted, so they are never exported.
 *
 * @module
 */
import { ROUTES } from "@kiro-learn/core/api";
import { type MemoryRecord, MemoryRecordSchema } from "@kiro-learn/core/schemas";
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import { callCollector, projectNamespace } from "./_client.ts";
import { type Command, flag, invocationDir, stringOption, UsageError } from "./_command.ts";

/** The header line's `type`. */
export const EXPORT_TYPE = "kiro-learn-export";

/** The version of the line format. */
export const EXPORT_VERSION = 1;

/** One line of an export. */
export type ExportLine =
  | { type: typeof EXPORT_TYPE; version: number; exported_at: string }
  | { type: "record"; record: MemoryRecord };

const PAGE = 500;

/** Writes the export of `namespace` (or of everything) line by line; returns the record count. */
export async function exportMemory(
  settings: Settings,
  options: { namespace?: string; write: (line: string) => void },
): Promise<number> {
  options.write(JSON.stringify({
    type: EXPORT_TYPE,
    version: EXPORT_VERSION,
    exported_at: new Date().toISOString(),
  }));
  let count = 0;
  for (let offset = 0;; offset += PAGE) {
    const params = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
    if (options.namespace) params.set("namespace", options.namespace);
    const res = await callCollector(settings, `${ROUTES.memories}?${params}`);
    if (res.status !== 200) {
      throw new Error(
        `the collector refused the export (${res.status}): ${JSON.stringify(res.body)}`,
      );
    }
    const page = res.body as { items: unknown[]; total: number };
    for (const item of page.items) {
      const record = MemoryRecordSchema.parse(item);
      options.write(JSON.stringify({ type: "record", record }));
      count++;
    }
    if (page.items.length < PAGE) return count;
  }
}

/** The `export` command. */
export const exportCommand: Command = {
  name: "export",
  usage: "kiro-learn export [--project DIR | --all] > memory.jsonl",
  summary:
    "write this project's memory (or all of it) as JSON Lines, for backup or another machine",
  options: { project: { type: "string" }, all: { type: "boolean" } },
  run: async (args) => {
    if (args.positionals.length > 0) throw new UsageError("export takes no arguments");
    const all = flag(args, "all");
    if (all && stringOption(args, "project")) {
      throw new UsageError("--all and --project exclude each other");
    }
    const settings = loadSettings();
    // --project DIR has made DIR the invocation folder already (resolved where the user is).
    const namespace = all ? undefined : await projectNamespace(settings, invocationDir());
    const encoder = new TextEncoder();
    const count = await exportMemory(settings, {
      namespace,
      write: (line) => Deno.stdout.writeSync(encoder.encode(line + "\n")),
    });
    console.error(`exported ${count} records${namespace ? ` of ${namespace}` : ""}`);
    return 0;
  },
};
