/**
 * Realistic, deterministic text for benchmarks: what a coding agent's events and memory records
 * look like (prompts, tool calls with file paths and command output, turn summaries, records
 * with titles, summaries, facts, concepts and files), generated from a seeded PRNG so every run
 * measures the same corpus.
 *
 * Words are drawn with a skew (early vocabulary entries are common, late ones rare) and
 * identifiers are composed from parts, so the index sees a long tail of rare terms as it does on
 * a real project, not a handful of words repeated everywhere.
 *
 * @module
 */
import corpusData from "./data/corpus.json" with { type: "json" };
import type { Event, EventBody, MemoryRecord } from "../schemas/mod.ts";

// ---- seeded PRNG ------------------------------------------------------------------------------

/** A seeded pseudo-random source (sfc32 seeded through splitmix32). Never `Math.random`. */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  /** One item, uniformly. Throws on an empty list. */
  pick<T>(items: readonly T[]): T;
  /** One item, early items more likely (roughly Zipf-like), for word frequencies. */
  pickSkewed<T>(items: readonly T[]): T;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** `count` distinct items (fewer if the list is shorter), in draw order. */
  sample<T>(items: readonly T[], count: number): T[];
}

/** Creates a PRNG from a 32-bit integer seed; equal seeds give equal sequences. */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  function splitmix32(): number {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  }
  let a = splitmix32();
  let b = splitmix32();
  let c = splitmix32();
  let d = splitmix32();
  function sfc32(): number {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t;
  }
  for (let i = 0; i < 12; i++) sfc32();
  const rng: Rng = {
    next(): number {
      return sfc32() / 4294967296;
    },
    int(min: number, max: number): number {
      return min + Math.floor(rng.next() * (max - min + 1));
    },
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new RangeError("pick from an empty list");
      return items[Math.floor(rng.next() * items.length)];
    },
    pickSkewed<T>(items: readonly T[]): T {
      if (items.length === 0) throw new RangeError("pick from an empty list");
      return items[Math.floor(rng.next() ** 1.7 * items.length)];
    },
    chance(p: number): boolean {
      return rng.next() < p;
    },
    sample<T>(items: readonly T[], count: number): T[] {
      const pool = [...items];
      const out: T[] = [];
      while (out.length < count && pool.length > 0) {
        out.push(pool.splice(Math.floor(rng.next() * pool.length), 1)[0]);
      }
      return out;
    },
  };
  return rng;
}

/** A 32-bit FNV-1a hash of a string, to derive seeds and ids from labels. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

// ---- vocabulary -------------------------------------------------------------------------------

/** Words of coding sessions, most common first within each list. */
export const VOCABULARY: typeof corpusData.vocabulary = corpusData.vocabulary;

/** General software words, for free-text slots: nouns, verbs and adjectives. */
export const LEXICON: {
  readonly nouns: readonly string[];
  readonly verbs: readonly string[];
  readonly adjectives: readonly string[];
} = corpusData.lexicon;

const V = VOCABULARY;

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// Slots whose text must keep its case at the start of a sentence (identifiers, paths, errors).
const VERBATIM_START = /^\{(ident|file|table|column|error|command)\}/;

/** Fills a template and capitalises it, unless it starts with a verbatim slot. */
function fillSentence(rng: Rng, template: string, topic?: Topic): string {
  const text = fill(rng, template, topic);
  return VERBATIM_START.test(template) ? text : capitalize(text);
}

/** A camelCase identifier such as `snapshotQueue` or `flushWatermarkBatch`. */
export function makeIdentifier(rng: Rng): string {
  const verb = rng.pickSkewed(V.identVerbs);
  const noun = rng.pickSkewed(V.identNouns);
  return rng.chance(0.25) ? `${verb}${noun}${rng.pick(V.identNouns)}` : `${verb}${noun}`;
}

/** A repository-relative path such as `core/queue/snapshot.ts`. */
export function makeFilePath(rng: Rng): string {
  const dir = rng.pickSkewed(V.dirs);
  const module = rng.pickSkewed(V.modules);
  const file = rng.pickSkewed(V.components).replace(" ", "_");
  const ext = rng.pick(V.extensions);
  const test = rng.chance(0.2) && ext === "ts" ? "_test" : "";
  return rng.chance(0.3)
    ? `${dir}/${module}_${file}${test}.${ext}`
    : `${dir}/${module}/${file}${test}.${ext}`;
}

function area(rng: Rng): string {
  return `${rng.pickSkewed(V.modules)} ${rng.pickSkewed(V.components)}`;
}

/** What one record or one turn is about: template slots prefer these words, as real text does. */
export interface Topic {
  /** Modules discussed. */
  module: string[];
  /** Components discussed. */
  component: string[];
  /** Identifiers mentioned. */
  ident: string[];
  /** Files touched. */
  file: string[];
  /** Tables involved. */
  table: string[];
  /** Columns involved. */
  column: string[];
  /** Libraries used. */
  lib: string[];
  /** Topics (with spaces, as prose writes them). */
  concept: string[];
}

/** Chance that a slot takes a word from the topic rather than from the whole vocabulary. */
const TOPIC_STICKINESS = 0.8;

/** A topic: two modules and components, a few identifiers and files, a table, a library. */
export function makeTopic(rng: Rng): Topic {
  const module = [rng.pickSkewed(V.modules), rng.pickSkewed(V.modules)];
  const component = [rng.pickSkewed(V.components), rng.pickSkewed(V.components)];
  const file = Array.from({ length: rng.int(1, 4) }, (_, i) => {
    const dir = rng.pickSkewed(V.dirs);
    const name = component[i % 2].replace(" ", "_");
    const ext = rng.pick(V.extensions);
    const test = rng.chance(0.2) && ext === "ts" ? "_test" : "";
    return `${dir}/${module[i % 2]}/${name}${test}.${ext}`;
  });
  return {
    module,
    component,
    ident: Array.from({ length: rng.int(2, 4) }, () => makeIdentifier(rng)),
    file,
    table: [rng.pickSkewed(V.tables)],
    column: [rng.pickSkewed(V.columns), rng.pickSkewed(V.columns)],
    lib: [rng.pickSkewed(V.libraries)],
    concept: rng.sample(V.concepts, rng.int(1, 4)).map((c) => c.replaceAll("-", " ")),
  };
}

function fill(rng: Rng, template: string, topic?: Topic): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const own = topic?.[key as keyof Topic];
    if (own && own.length > 0 && rng.chance(TOPIC_STICKINESS)) return rng.pick(own);
    if (topic && key === "area") return `${fill(rng, "{module} {component}", topic)}`;
    return slot(rng, key);
  });
}

// A gentler skew than `pickSkewed`: the commonest general word appears in a few percent of
// draws, not in most documents.
function pickLexicon(rng: Rng, words: readonly string[]): string {
  return words[Math.floor(rng.next() ** 1.5 * words.length)];
}

function slot(rng: Rng, key: string): string {
  switch (key) {
    case "module":
      return rng.pickSkewed(V.modules);
    case "component":
      return rng.pickSkewed(V.components);
    case "area":
      return area(rng);
    case "bug":
      return rng.pickSkewed(V.bugs);
    case "past":
      return rng.pickSkewed(V.pastVerbs);
    case "verb":
      return rng.pickSkewed(V.imperatives);
    case "lib":
    case "otherLib":
      return rng.pickSkewed(V.libraries);
    case "concept":
      return rng.pickSkewed(V.concepts).replaceAll("-", " ");
    case "ident":
      return makeIdentifier(rng);
    case "file":
      return makeFilePath(rng);
    case "table":
      return rng.pickSkewed(V.tables);
    case "column":
      return rng.pickSkewed(V.columns);
    case "error":
      return rng.pickSkewed(V.errors);
    case "command":
      return rng.pickSkewed(V.commands);
    case "pref":
      return rng.pick(V.preferences);
    case "noun":
    case "noun2":
      return pickLexicon(rng, LEXICON.nouns);
    case "lexVerb":
      return pickLexicon(rng, LEXICON.verbs);
    case "adj":
      return pickLexicon(rng, LEXICON.adjectives);
    case "n":
      return String(rng.int(2, 400));
    case "ms":
      return String(rng.pickSkewed([5, 12, 30, 50, 80, 120, 250, 500, 1200, 3000, 30000]));
    case "line":
      return String(rng.int(1, 900));
    case "port":
      return String(rng.pick([3000, 5432, 6379, 8080, 21100, 9229]));
    default:
      throw new Error(`unknown template slot ${key}`);
  }
}

const TITLE_TEMPLATES: readonly string[] = corpusData.titleTemplates;

const SUMMARY_SENTENCES: readonly string[] = corpusData.summarySentences;

const FACT_TEMPLATES: readonly string[] = corpusData.factTemplates;

const PROMPT_TEMPLATES: readonly string[] = corpusData.promptTemplates;

const PUNCTUATED_TEMPLATES: readonly string[] = corpusData.punctuatedTemplates;

/** Realistic example prompts, always part of the query set. */
export const EXAMPLE_QUERIES: readonly string[] = corpusData.exampleQueries;

/** A short prompt as a developer types it. */
export function makePrompt(rng: Rng, options: { topic?: Topic } = {}): string {
  return fill(rng, rng.pick(PROMPT_TEMPLATES), options.topic);
}

/** A prompt with punctuation, quotes, paths or FTS5 operator look-alikes. */
export function makePunctuatedPrompt(rng: Rng): string {
  return fill(rng, rng.pick(PUNCTUATED_TEMPLATES));
}

/** A long pasted prompt of at least `minWords` words (context, a log excerpt, the ask). */
export function makeLongPrompt(
  rng: Rng,
  options: { minWords: number; topic?: Topic },
): string {
  const topic = options.topic;
  const parts = [
    fillSentence(rng, rng.pick(PROMPT_TEMPLATES), topic) + ".",
    "Here is what I see:",
  ];
  let words = parts.join(" ").trim().split(/\s+/).length;
  while (words < options.minWords) {
    const part = rng.chance(0.3)
      ? `\n    at ${makeIdentifier(rng)} (${makeFilePath(rng)}:${rng.int(1, 900)}:${
        rng.int(1, 80)
      })`
      : fill(rng, rng.pick(SUMMARY_SENTENCES), topic);
    parts.push(part);
    words += part.trim().split(/\s+/).length;
  }
  parts.push(fill(rng, "Can you {verb} it and add a test in {file}?", topic));
  return parts.join(" ");
}

// ---- records -----------------------------------------------------------------------------------

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A valid ULID whose time part is `timeMs` and whose random part comes from `rng`. */
export function seededUlid(rng: Rng, timeMs: number): string {
  let time = "";
  let t = Math.floor(timeMs);
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let random = "";
  for (let i = 0; i < 16; i++) random += CROCKFORD[Math.floor(rng.next() * 32)];
  return time + random;
}

/** A valid namespace whose project id is derived from `label`. */
export function corpusNamespace(label: string): string {
  const rng = createRng(hashString(label));
  let hex = "";
  for (let i = 0; i < 64; i++) hex += "0123456789abcdef"[Math.floor(rng.next() * 16)];
  return `/actor/bench/project/${hex}/`;
}

/** Start of corpus time: every generated timestamp is after it. */
export const CORPUS_EPOCH_MS: number = Date.UTC(2025, 0, 6, 9, 0, 0);

const OBSERVATION_WEIGHTS: readonly MemoryRecord["observation_type"][] = [
  "tool_use",
  "discovery",
  "discovery",
  "decision",
  "error",
  "error",
  "pattern",
  "session_summary",
];

function sentencesUpTo(
  rng: Rng,
  options: { min: number; max: number; topic?: Topic },
): string {
  const target = rng.int(options.min, options.max);
  let text = "";
  for (let attempt = 0; text.length < target && attempt < 100; attempt++) {
    const sentence = fill(rng, rng.pick(SUMMARY_SENTENCES), options.topic);
    const next = text === "" ? sentence : `${text} ${sentence}`;
    if (next.length > options.max) {
      if (text.length >= options.min) break;
      continue;
    }
    text = next;
  }
  return text;
}

/**
 * One memory record, as extraction writes it: a title, a 200–600 character summary, 2–5 facts,
 * 1–4 concepts and 1–4 files. `index` orders `created_at` (about seven minutes apart).
 */
export function makeCorpusRecord(
  rng: Rng,
  options: { namespace: string; index: number },
): MemoryRecord {
  const topic = makeTopic(rng);
  const createdMs = CORPUS_EPOCH_MS + options.index * 420_000 + rng.int(0, 60_000);
  const title = fillSentence(rng, rng.pick(TITLE_TEMPLATES), topic).slice(0, 200);
  const factCount = rng.int(2, 5);
  const facts = new Set<string>();
  for (let attempt = 0; facts.size < factCount && attempt < 50; attempt++) {
    facts.add(fillSentence(rng, rng.pick(FACT_TEMPLATES), topic).slice(0, 500));
  }
  const sources = Array.from(
    { length: rng.int(1, 3) },
    (_, i) => seededUlid(rng, createdMs - 60_000 + i * 1000),
  );
  return {
    record_id: `mr_${seededUlid(rng, createdMs)}`,
    namespace: options.namespace,
    strategy: rng.chance(0.85) ? "llm-summary" : "heuristic",
    title,
    summary: sentencesUpTo(rng, { min: 200, max: 600, topic }),
    facts: [...facts],
    concepts: topic.concept.map((c) => c.replaceAll(" ", "-")),
    files_touched: [...new Set(topic.file)],
    observation_type: rng.pick(OBSERVATION_WEIGHTS),
    source_event_ids: sources,
    created_at: new Date(createdMs).toISOString(),
  };
}

/** `count` records from `seed`, indexes starting at `startIndex` (default 0). */
export function generateRecords(
  count: number,
  options: { seed: number; namespace: string; startIndex?: number },
): MemoryRecord[] {
  const rng = createRng(options.seed);
  const start = options.startIndex ?? 0;
  return Array.from(
    { length: count },
    (_, i) => makeCorpusRecord(rng, { namespace: options.namespace, index: start + i }),
  );
}

// ---- events ------------------------------------------------------------------------------------

const CODE_LINES: readonly string[] = corpusData.codeLines;

const OUTPUT_LINES: readonly string[] = corpusData.outputLines;

function linesUpTo(
  rng: Rng,
  options: { templates: readonly string[]; chars: number; topic: Topic },
): string {
  const lines: string[] = [];
  let length = 0;
  while (length < options.chars) {
    const line = fill(rng, rng.pick(options.templates), options.topic);
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n");
}

function toolUseBody(rng: Rng, topic: Topic): EventBody {
  // Serialised bodies land between about 1 and 2 KB once keys and escapes are added.
  const chars = rng.int(850, 1750);
  switch (rng.pick(["execute_bash", "execute_bash", "fs_read", "fs_write", "grep"] as const)) {
    case "execute_bash":
      return {
        type: "json",
        data: {
          tool_name: "execute_bash",
          tool_input: {
            command: fill(rng, "{command}", topic),
            summary: makePrompt(rng, { topic }),
          },
          tool_response: {
            exit_status: rng.chance(0.7) ? 0 : 1,
            stdout: linesUpTo(rng, { templates: OUTPUT_LINES, chars: chars - 80, topic }),
            stderr: rng.chance(0.3) ? fill(rng, "{error}", topic) : "",
          },
        },
      };
    case "fs_read": {
      const start = rng.int(1, 400);
      const content = linesUpTo(rng, { templates: CODE_LINES, chars, topic });
      return {
        type: "json",
        data: {
          tool_name: "fs_read",
          tool_input: {
            operations: [{
              mode: "Line",
              path: rng.pick(topic.file),
              start_line: start,
              end_line: start + content.split("\n").length,
            }],
          },
          tool_response: { content },
        },
      };
    }
    case "fs_write": {
      const half = Math.floor(chars / 2);
      return {
        type: "json",
        data: {
          tool_name: "fs_write",
          tool_input: {
            command: "str_replace",
            path: rng.pick(topic.file),
            old_str: linesUpTo(rng, { templates: CODE_LINES, chars: half, topic }),
            new_str: linesUpTo(rng, { templates: CODE_LINES, chars: half, topic }),
          },
          tool_response: { success: true },
        },
      };
    }
    case "grep": {
      const matches: { file: string; line: number; text: string }[] = [];
      let length = 0;
      while (length < chars) {
        const match = {
          file: rng.chance(0.5) ? rng.pick(topic.file) : makeFilePath(rng),
          line: rng.int(1, 900),
          text: fill(rng, rng.pick(CODE_LINES), topic).trim(),
        };
        matches.push(match);
        length += match.file.length + match.text.length + 30;
      }
      return {
        type: "json",
        data: {
          tool_name: "grep",
          tool_input: { pattern: rng.pick(topic.ident), path: rng.pickSkewed(V.dirs) },
          tool_response: { matches },
        },
      };
    }
  }
}

/**
 * An endless, deterministic stream of events as a shim posts them: sessions of turns, each
 * turn a prompt, 1–8 tool uses (1–2 KB JSON bodies with paths and command output) and a turn
 * summary. Roughly 20% prompts, 65% tool uses, 15% summaries.
 */
export function* corpusEvents(
  options: { seed: number; namespace: string; projectPath?: string },
): Generator<Event, never> {
  const rng = createRng(options.seed);
  const source = {
    surface: "kiro-cli" as const,
    version: "0.1.0",
    client_id: "bench",
    project_path: options.projectPath ?? "/home/dev/src/project",
  };
  let timeMs = CORPUS_EPOCH_MS;
  for (let session = 0;; session++) {
    const sessionId = `session-${seededUlid(rng, timeMs).toLowerCase()}`;
    const turns = rng.int(2, 8);
    for (let turn = 0; turn < turns; turn++) {
      const topic = makeTopic(rng);
      const prompt = rng.chance(0.1)
        ? makeLongPrompt(rng, { minWords: 60, topic })
        : makePrompt(rng, { topic });
      const base = {
        session_id: sessionId,
        actor_id: "bench",
        namespace: options.namespace,
        schema_version: 1 as const,
        source,
      };
      timeMs += rng.int(5_000, 120_000);
      const promptId = seededUlid(rng, timeMs);
      yield {
        ...base,
        event_id: promptId,
        kind: "prompt",
        body: { type: "text", content: prompt },
        valid_time: new Date(timeMs).toISOString(),
      };
      const tools = rng.int(1, 6);
      for (let i = 0; i < tools; i++) {
        timeMs += rng.int(200, 20_000);
        yield {
          ...base,
          event_id: seededUlid(rng, timeMs),
          parent_event_id: promptId,
          kind: "tool_use",
          body: toolUseBody(rng, topic),
          valid_time: new Date(timeMs).toISOString(),
        };
      }
      timeMs += rng.int(500, 5_000);
      yield {
        ...base,
        event_id: seededUlid(rng, timeMs),
        parent_event_id: promptId,
        kind: "session_summary",
        body: {
          type: "message",
          turns: [
            { role: "user", content: prompt },
            { role: "assistant", content: sentencesUpTo(rng, { min: 150, max: 500, topic }) },
          ],
        },
        valid_time: new Date(timeMs).toISOString(),
      };
    }
    timeMs += rng.int(600_000, 36_000_000);
  }
}

/** The first `count` events of `corpusEvents(options)`. */
export function generateEvents(
  count: number,
  options: { seed: number; namespace: string; projectPath?: string },
): Event[] {
  const out: Event[] = [];
  for (const event of corpusEvents(options)) {
    if (out.length >= count) break;
    out.push(event);
  }
  return out;
}

// ---- queries -----------------------------------------------------------------------------------

/** A search query and what kind of prompt it imitates. */
export interface CorpusQuery {
  /** The query text. */
  text: string;
  /** `example` (fixed list), `short`, `punctuated` or `long` (60+ words). */
  kind: "example" | "short" | "punctuated" | "long";
}

/**
 * `count` queries: the `EXAMPLE_QUERIES` first (as many as fit), then about 50% short prompts,
 * 30% prompts with punctuation and quotes, and 20% long pasted prompts of 60–160 words.
 */
export function generateQueries(count: number, options: { seed: number }): CorpusQuery[] {
  const rng = createRng(options.seed);
  const out: CorpusQuery[] = EXAMPLE_QUERIES.slice(0, count).map((text) => ({
    text,
    kind: "example" as const,
  }));
  while (out.length < count) {
    const u = rng.next();
    if (u < 0.5) out.push({ text: makePrompt(rng), kind: "short" });
    else if (u < 0.8) out.push({ text: makePunctuatedPrompt(rng), kind: "punctuated" });
    else {
      out.push({ text: makeLongPrompt(rng, { minWords: rng.int(60, 160) }), kind: "long" });
    }
  }
  return out;
}
