/**
 * `kiro-learn search`: this project's memory, ranked as the agent would get it.
 *
 * @module
 */
import { ROUTES } from "@kiro-learn/core/api";
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import { SEARCH_MODES } from "../daemon/retrieval/mod.ts";
import { callCollector, projectNamespace } from "./_client.ts";
import {
  choiceOption,
  type Command,
  flag,
  invocationDir,
  stringOption,
  UsageError,
} from "./_command.ts";

/** Searches the current project's memory and prints ranked records. */
export async function search(
  settings: Settings,
  query: string,
  options: {
    namespace?: string;
    limit?: number;
    mode?: string;
    json?: boolean;
    print?: (line: string) => void;
  } = {},
): Promise<number> {
  const print = options.print ?? console.log;
  const namespace = options.namespace ?? await projectNamespace(settings, invocationDir());
  const params = new URLSearchParams({
    namespace,
    query,
    limit: String(options.limit ?? 10),
    ...(options.mode ? { mode: options.mode } : {}),
  });
  const res = await callCollector(settings, `${ROUTES.search}?${params}`);
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

/** The `search` command. */
export const searchCommand: Command = {
  name: "search",
  usage: `kiro-learn search <query> [--limit N] [--namespace NS] [--mode ${
    SEARCH_MODES.join("|")
  }] [--json]`,
  summary: "search this project's memory, ranked exactly as the prompt hook injects it",
  options: {
    limit: { type: "string" },
    mode: { type: "string" },
    namespace: { type: "string" },
    json: { type: "boolean" },
  },
  run: (args) => {
    if (args.positionals.length === 0) throw new UsageError("search needs a query");
    const rawLimit = stringOption(args, "limit");
    const limit = rawLimit === undefined ? undefined : Number(rawLimit);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 100)) {
      throw new UsageError("--limit must be an integer from 1 to 100");
    }
    return search(loadSettings(), args.positionals.join(" "), {
      limit,
      namespace: stringOption(args, "namespace"),
      mode: choiceOption(args, "mode", { allowed: SEARCH_MODES }),
      json: flag(args, "json"),
    });
  },
};
