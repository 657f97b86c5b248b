/**
 * The attack suite: the real collector (a daemon process on loopback with a temporary data dir),
 * the real hooks and CLI as child processes, the real MCP server driven by the MCP SDK's client,
 * and the viewer in real headless Chromium, attacked as an intruder would. It answers figures:
 * secrets tried and leaked per way in (after which every byte of each data dir is searched), and
 * requests tried per attack with how many were refused as they must be.
 *
 * ```sh
 * deno task attack [--quality=DIR]   # prints the tables, writes .bench/attack.json
 * ```
 *
 * `attack_test.ts` runs the same suite in `deno task test` and asserts 0 leaks and every
 * attack refused. `deno task attack` also runs `core/bench/redaction_bench.ts` for the false
 * positives on ordinary text (`--quality=DIR` names the real set's `fixes-dev` folder).
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { AttackFigure } from "./_figure.ts";
import { type ChannelFigure, SECRET_CORPUS, secretChannels } from "./_secrets.ts";
import { requestAttacks } from "./_requests.ts";
import { impostorOnThePort, selfEscalation, sigkillUnderClients } from "./_processes.ts";
import { browserAttacks } from "./_browser.ts";
import { escapesToTheTerminal, forgetLeavesNothing } from "./_stored_text.ts";
import { viewerSessionAttacks } from "./_viewer_session.ts";
import { startTestDaemon } from "../testing/mod.ts";

export type { AttackFigure } from "./_figure.ts";
export type { ChannelFigure } from "./_secrets.ts";

/** Everything the suite measured. */
export interface AttackReport {
  /** Secrets in the corpus, and how many kinds. */
  corpus: { secrets: number; kinds: number };
  /** Per way in: secrets tried and leaked. */
  channels: ChannelFigure[];
  /** Per attack: requests tried, refused as they must be, and what they got. */
  attacks: AttackFigure[];
  /** Wall time of the run (ms). */
  ms: number;
}

/** Runs every attack; `log` hears a line as each part finishes. */
export async function runAttackSuite(
  options: { log?: (line: string) => void } = {},
): Promise<AttackReport> {
  const started = performance.now();
  const log = options.log ?? (() => {});
  const channels = await secretChannels({ log });
  const attacks: AttackFigure[] = [];
  const note = (figures: AttackFigure[]) => {
    for (const f of figures) log(`${f.attack}: ${f.held} of ${f.tried} held`);
    attacks.push(...figures);
  };
  {
    await using daemon = await startTestDaemon();
    note(await requestAttacks(daemon));
  }
  note(await browserAttacks());
  note(await viewerSessionAttacks());
  note([await impostorOnThePort(), await selfEscalation(), await sigkillUnderClients()]);
  note([await forgetLeavesNothing(), await escapesToTheTerminal()]);
  return {
    corpus: {
      secrets: SECRET_CORPUS.length,
      kinds: new Set(SECRET_CORPUS.map((e) => e.kind)).size,
    },
    channels,
    attacks,
    ms: Math.round(performance.now() - started),
  };
}

/** False positives of the scrubber on one corpus of ordinary text. */
export interface FalsePositiveFigure {
  /** The corpus. */
  corpus: string;
  /** Lines scrubbed (0: not at hand). */
  lines: number;
  /** Lines changed. */
  changed: number;
  /** Changed per 10,000 lines. */
  per10k: number;
}

function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  return [
    line(header),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map((r) => line(r.map(String))),
  ]
    .join("\n");
}

/** The report as Markdown tables (docs/security.md carries them). */
export function formatReport(
  report: AttackReport,
  options: { falsePositives?: FalsePositiveFigure[] } = {},
): string {
  const kb = (n: number) => `${Math.round(n / 1024).toLocaleString("en")} KiB`;
  const parts = [
    `${report.corpus.secrets} secrets of ${report.corpus.kinds} kinds, through every way in ` +
    "(a fresh data dir each; every byte of it searched after a SIGKILL and after a clean stop):",
    "",
    table(
      ["way in", "secrets tried", "stored", "leaked", "data dir searched"],
      report.channels.map((c) => [c.channel, c.tried, c.stored, c.leaked, kb(c.bytesSearched)]),
    ),
    "",
    table(
      ["attack", "tried", "held", "outcome"],
      report.attacks.map((a) => [a.attack, a.tried, a.held, a.outcome]),
    ),
  ];
  if (options.falsePositives) {
    parts.push(
      "",
      table(
        ["ordinary text", "lines", "changed", "per 10k lines"],
        options.falsePositives.map((f) =>
          f.lines === 0
            ? [f.corpus, "not at hand", "", ""]
            : [f.corpus, f.lines.toLocaleString("en"), f.changed, f.per10k.toFixed(1)]
        ),
      ),
    );
  }
  const failures = [
    ...report.channels.flatMap((c) => c.where.map((w) => `${c.channel}: ${w}`)),
    ...report.attacks.flatMap((a) => a.failures.map((f) => `${a.attack}: ${f}`)),
  ];
  parts.push(
    "",
    failures.length === 0 ? "Nothing leaked; every attack held." : failures.join("\n"),
  );
  parts.push(`(${(report.ms / 1000).toFixed(0)} s)`);
  return parts.join("\n");
}

const ROOT = new URL("../../../", import.meta.url).pathname;

async function falsePositives(quality: string | undefined): Promise<FalsePositiveFigure[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `${ROOT}core/bench/redaction_bench.ts`,
      "--json",
      ...(quality ? [`--quality=${quality}`] : []),
    ],
    stderr: "inherit",
  }).output();
  if (out.code !== 0) throw new Error("core/bench/redaction_bench.ts failed");
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { quality: { type: "string" } } });
  const report = await runAttackSuite({ log: (line) => console.error(line) });
  const fp = await falsePositives(values.quality);
  console.log(formatReport(report, { falsePositives: fp }));
  await Deno.mkdir(`${ROOT}.bench`, { recursive: true });
  await Deno.writeTextFile(
    `${ROOT}.bench/attack.json`,
    JSON.stringify({ ...report, falsePositives: fp }, null, 2) + "\n",
  );
  const failed = report.channels.some((c) => c.leaked > 0) ||
    report.attacks.some((a) => a.failures.length > 0);
  Deno.exit(failed ? 1 : 0);
}
