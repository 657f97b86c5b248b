/**
 * Secret redaction on ordinary text: how often it changes a line that holds no secret (false
 * positives per 10,000 lines), and how fast it runs.
 *
 * ```sh
 * deno run -A core/bench/redaction_bench.ts [--quality=DIR]
 * ```
 *
 * Two real corpora: this repository's own source and docs (tests and test data left out: they
 * hold planted secrets on purpose), and the commit messages of the real retrieval set
 * (`../shared/quality/fixes-dev/records.jsonl`, when present). Prints the rate, a few examples of
 * changed lines to judge by eye, and lines per second.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { scrubText } from "../privacy/mod.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function repoLines(): Promise<string[]> {
  const lines: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) {
        if (!["node_modules", ".git", "testdata", ".bench"].includes(e.name)) await walk(path);
      } else if (/\.(ts|tsx|js|md|json)$/.test(e.name) && !/_test\.tsx?$/.test(e.name)) {
        lines.push(...(await Deno.readTextFile(path)).split("\n"));
      }
    }
  };
  for (const member of ["core", "collector", "shims", "mcp", "agents"]) await walk(ROOT + member);
  lines.push(...(await Deno.readTextFile(ROOT + "README.md")).split("\n"));
  return lines;
}

async function commitLines(dir: string): Promise<string[]> {
  try {
    const text = await Deno.readTextFile(`${dir}/records.jsonl`);
    return text.split("\n").filter((l) => l !== "").flatMap((l) => {
      const r = JSON.parse(l) as { title: string; summary: string };
      return [r.title, ...r.summary.split("\n")];
    });
  } catch {
    return [];
  }
}

function measure(name: string, lines: readonly string[]): void {
  if (lines.length === 0) {
    console.log(`${name}: not available`);
    return;
  }
  const started = performance.now();
  const changed = lines.filter((line) => scrubText(line) !== line);
  const seconds = (performance.now() - started) / 1000;
  const per10k = (changed.length / lines.length) * 10_000;
  console.log(
    `${name}: ${changed.length} of ${lines.length} lines changed (${per10k.toFixed(1)} per 10k ` +
      `lines); ${Math.round(lines.length / seconds).toLocaleString("en")} lines/s`,
  );
  for (const line of changed.slice(0, 8)) console.log(`  ${line.trim().slice(0, 140)}`);
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { quality: { type: "string" } } });
  measure("repository source and docs", await repoLines());
  measure(
    "real commit messages",
    await commitLines(values.quality ?? `${ROOT}../shared/quality/fixes-dev`),
  );
}
