/**
 * Generates the template distractors of the retrieval-quality set
 * (`data/distractors.ndjson`): everyday memory records of the fictional `tideline` project —
 * small UI changes, dependency bumps, refactors, routine fixes, session notes — across the same
 * areas as the labelled targets, so they share surface words (login, token, cache, table, job,
 * upload, hour, test...) with the queries without answering them.
 *
 * Deterministic (seeded); the output is checked in, and the integrity test fails if this script
 * would now write something else.
 *
 * ```sh
 * deno run -A collector/tooling/quality/generate.ts          # rewrite data/distractors.ndjson
 * ```
 *
 * @module
 */
import { createRng, type Rng } from "@kiro-learn/core/testing";
import type { SetRecord } from "./dataset.ts";
import areaData from "./data/distractor_areas.json" with { type: "json" };

type Type = SetRecord["type"];

interface Area {
  concepts: string[];
  components: string[];
  files: string[];
  templates: { type: Type; title: string; summary: string; facts: string[] }[];
  /** Sentences that may follow a template's summary (records are a few sentences long). */
  more: string[];
  /** Facts that may follow a template's facts. */
  moreFacts: string[];
}

// The areas, their templates and the library versions are data: `data/distractor_areas.json`.
const LIBS: readonly string[][] = areaData.libs;

const AREAS: Record<string, Area> = areaData.areas as Record<string, Area>;

const NUMBERS: readonly number[] = areaData.numbers;

function fill(text: string, slots: Record<string, string>): string {
  return text.replace(/\{([A-Z])\}/g, (m, key: string) => slots[key] ?? m);
}

function pascal(text: string): string {
  return text.split(/[\s_-]+/).map((w) => w[0].toUpperCase() + w.slice(1)).join("");
}

function record(
  rng: Rng,
  area: Area,
  template: Area["templates"][number],
  index: number,
): SetRecord {
  const component = rng.pick(area.components);
  const [lib, version] = rng.pick(LIBS);
  const slots = {
    C: component,
    T: component.replaceAll(" ", "_"),
    F: rng.pick(area.files),
    N: String(rng.pick(NUMBERS)),
    M: String(rng.int(2, 9)),
    L: lib,
    V: version,
  };
  // {C} in a title reads better capitalised at the start; "list{C}By" wants PascalCase.
  const summary = [
    fill(template.summary.replace("list{C}By", `list${pascal(slots.T)}By`), slots),
    ...rng.sample(area.more, rng.int(1, 2)).map((m) => fill(m, slots)),
  ].join(" ");
  return {
    key: `gen-${String(index).padStart(3, "0")}`,
    type: template.type,
    days_ago: rng.int(1, 180),
    // Capitalise a title that starts with a component name, but not the command `tide`.
    title: fill(template.title, slots).replace(/^(?!tide )[a-z]/, (c) => c.toUpperCase()),
    summary,
    facts: [...template.facts, ...rng.sample(area.moreFacts, rng.int(1, 2))].map((f) =>
      fill(f, slots)
    ),
    concepts: rng.sample(area.concepts, rng.int(1, Math.min(2, area.concepts.length))),
    files: [slots.F],
  };
}

/** The template distractors: `count` records with distinct titles, from `seed`. */
export function generateDistractors(count: number, options: { seed: number }): SetRecord[] {
  const rng = createRng(options.seed);
  const areas = Object.values(AREAS);
  const out: SetRecord[] = [];
  const titles = new Set<string>();
  for (let attempt = 0; out.length < count && attempt < count * 50; attempt++) {
    const area = areas[attempt % areas.length];
    const candidate = record(rng, area, rng.pick(area.templates), out.length);
    if (titles.has(candidate.title)) continue;
    titles.add(candidate.title);
    out.push(candidate);
  }
  return out;
}

/** Seed and size of the checked-in file. */
export const DISTRACTORS = { count: 440, seed: 20_240_601 } as const;

if (import.meta.main) {
  const lines = generateDistractors(DISTRACTORS.count, { seed: DISTRACTORS.seed })
    .map((r) => JSON.stringify(r));
  const path = new URL("./data/distractors.ndjson", import.meta.url);
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  console.log(`wrote ${lines.length} records to ${path.pathname}`);
}
