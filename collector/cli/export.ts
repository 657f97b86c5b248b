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
import {
  type Command,
  flag,
  invocationDir,
  stringOption,
  UsageError,
  userPath,
} from "./_command.ts";

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
  usage: "kiro-learn export [--project DIR | --all] [--output FILE | > FILE]",
  summary:
    "write this project's memory (or all of it) as JSON Lines, for backup or another machine",
  options: {
    project: { type: "string" },
    all: { type: "boolean" },
    output: { type: "string", short: "o" },
  },
  run: async (args) => {
    if (args.positionals.length > 0) throw new UsageError("export takes no arguments");
    const all = flag(args, "all");
    if (all && stringOption(args, "project")) {
      throw new UsageError("--all and --project exclude each other");
    }
    const settings = loadSettings();
    // --project DIR has made DIR the invocation folder already (resolved where the user is).
    const namespace = all ? undefined : await projectNamespace(settings, invocationDir());
    const output = stringOption(args, "output");
    const file = output === undefined ? null : privateFile(userPath(output));
    if (file === null) privateStdout();
    const encoder = new TextEncoder();
    let count: number;
    try {
      count = await exportMemory(settings, {
        namespace,
        write: (line) => (file ?? Deno.stdout).writeSync(encoder.encode(line + "\n")),
      });
    } finally {
      file?.close();
    }
    console.error(
      `exported ${count} records${namespace ? ` of ${namespace}` : ""}` +
        (output === undefined ? "" : ` to ${output}`),
    );
    return 0;
  },
};

/** The export's file, created (or truncated) readable by its owner only, like the data dir. */
function privateFile(path: string): Deno.FsFile {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { write: true, create: true, truncate: true, mode: 0o600 });
  } catch (error) {
    throw new UsageError(
      `cannot write ${path}: ${error instanceof Error ? error.message : error}`,
    );
  }
  // An existing file keeps its mode on open: the export is memory, private to its owner.
  if (Deno.build.os !== "windows") Deno.chmodSync(path, 0o600);
  return file;
}

/**
 * A shell's `> FILE` creates the file with the umask's mode (often 0644): when stdout is a
 * regular file of ours, it is made 0600 before a record is written to it.
 */
function privateStdout(): void {
  if (Deno.build.os !== "linux") return;
  try {
    const path = Deno.readLinkSync("/proc/self/fd/1");
    if (Deno.statSync(path).isFile) Deno.chmodSync(path, 0o600);
  } catch {
    // A pipe, a terminal, or a file of another user's: nothing to make private here.
  }
}
