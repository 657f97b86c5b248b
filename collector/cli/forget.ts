/**
 * `kiro-learn forget`: delete a memory record and everything derived from it.
 *
 * @module
 */
import { memoryPath } from "@kiro-learn/core/api";
import { loadSettings, type Settings } from "@kiro-learn/core/settings";
import { callCollector } from "./_client.ts";
import { type Command, flag, UsageError } from "./_command.ts";

/** Forgets one record (and everything derived from it). */
export async function forget(
  settings: Settings,
  recordId: string,
  options: { withSources?: boolean; print?: (line: string) => void } = {},
): Promise<number> {
  const print = options.print ?? console.log;
  const query = options.withSources ? "?with_sources=true" : "";
  const res = await callCollector(settings, memoryPath(recordId) + query, {
    method: "DELETE",
  });
  if (res.status === 200) {
    const events = (res.body as { source_events_deleted?: number }).source_events_deleted ?? 0;
    print(`forgot ${recordId}${options.withSources ? ` and ${events} source events` : ""}`);
    return 0;
  }
  if (res.status === 404) {
    print(`no memory ${recordId}: check the id with \`kiro-learn search\``);
    return 1;
  }
  print(`forget failed (${res.status}): ${JSON.stringify(res.body)}`);
  return 1;
}

/** The `forget` command. */
export const forgetCommand: Command = {
  name: "forget",
  usage: "kiro-learn forget <record_id> [--with-sources]",
  summary: "delete a memory record for good (and the events it came from, with --with-sources)",
  options: { "with-sources": { type: "boolean" } },
  run: (args) => {
    if (args.positionals.length !== 1) throw new UsageError("forget needs exactly one record id");
    return forget(loadSettings(), args.positionals[0], {
      withSources: flag(args, "with-sources"),
    });
  },
};
