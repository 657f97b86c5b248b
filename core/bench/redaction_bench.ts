/**
 * Secret redaction on ordinary text: how often it changes a line that holds no secret (false
 * positives per 10,000 lines), and how fast it runs.
 *
 * ```sh
 * deno run -A core/bench/redaction_bench.ts [--quality=DIR] [--json]
 * ```
 *
 * Two real corpora: this repository's own source and docs (tests and test data left out: they
 * hold planted secrets on purpose), and the commit messages of the real retrieval set
 * (`../shared/quality/fixes-dev/records.jsonl`, when present). Prints the rate, a few examples of
 * changed lines to judge by eye, and lines per second (`--json`: the figures as one JSON line).
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

/** False positives on one corpus. */
interface FalsePositives {
  /** The corpus. */
  corpus: string;
  /** Lines scrubbed (0 when the corpus is not at hand). */
  lines: number;
  /** Lines the scrubber changed. */
  changed: number;
  /** Changed lines per 10,000. */
  per10k: number;
  /** Lines scrubbed per second. */
  linesPerSecond: number;
  /** A few changed lines, to judge by eye. */
  examples: string[];
}

function measure(corpus: string, lines: readonly string[]): FalsePositives {
  const started = performance.now();
  const changed = lines.filter((line) => scrubText(line) !== line);
  const seconds = (performance.now() - started) / 1000;
  return {
    corpus,
    lines: lines.length,
    changed: changed.length,
    per10k: lines.length === 0 ? 0 : (changed.length / lines.length) * 10_000,
    linesPerSecond: lines.length === 0 ? 0 : Math.round(lines.length / seconds),
    examples: changed.slice(0, 8).map((line) => line.trim().slice(0, 140)),
  };
}

function print(f: FalsePositives): void {
  if (f.lines === 0) {
    console.log(`${f.corpus}: not available`);
    return;
  }
  console.log(
    `${f.corpus}: ${f.changed} of ${f.lines} lines changed (${f.per10k.toFixed(1)} per 10k ` +
      `lines); ${f.linesPerSecond.toLocaleString("en")} lines/s`,
  );
  for (const line of f.examples) console.log(`  ${line}`);
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { quality: { type: "string" }, json: { type: "boolean" } },
  });
  const figures = [
    measure("repository source and docs", await repoLines()),
    measure(
      "real commit messages",
      await commitLines(values.quality ?? `${ROOT}../shared/quality/fixes-dev`),
    ),
  ];
  if (values.json) console.log(JSON.stringify(figures));
  else figures.forEach(print);
}
