/**
 * Code-aware text for search. Records and prompts are full of identifiers (`getUserById`,
 * `ofproto_dpif_xlate`, `mlx5e`), paths (`lib/netdev-dpdk.c`) and `subsystem:` prefixes.
 *
 * SQLite's unicode61 tokenizer already splits on `_`, `/`, `.` and `-`, so snake_case names and
 * paths become their parts in the index. What it cannot see are camelCase and letter/digit
 * boundaries: {@linkcode codeParts} adds those parts as an extra indexed column, and
 * {@linkcode queryTokens} does the same to a prompt, plus each multi-part identifier whole, as a
 * phrase, so parts match parts while an exact identifier (a rare phrase, hence a high IDF) still
 * ranks first.
 *
 * Dependency-free and deterministic: the index stores its output (versioned by
 * {@linkcode SEARCH_TEXT_VERSION}), so a change here must bump the version to re-index.
 *
 * @module
 */

/**
 * Version of the derived search text. Stored per record; records indexed with an older version
 * are re-derived when the storage opens.
 */
export const SEARCH_TEXT_VERSION = 1;

/** Most distinct query tokens considered at all; a pasted log must not make retrieval slow. */
export const MAX_QUERY_TOKENS = 96;

/** Most characters of a record's text scanned for code parts (a huge record stays cheap). */
const MAX_SCAN_CHARS = 64 * 1024;

/**
 * Words that say nothing about a project. They are dropped from a query unless nothing else is
 * left, because an OR over "the" matches every record.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  ("a an and are as at be but by can could did do does for from had has have how i if in into " +
    "is it its me my no not of on or our please should so that the their then there these this " +
    "to us was we were what when where which who why will with would you your " +
    "about above after again all also am any been before being below between both down during " +
    "each few further here just more most now off once only other out over own same some such " +
    "than too under until up very while").split(" "),
);

const WORD = /[\p{L}\p{N}]+/gu;

/** The words of a text as the index's tokenizer sees them (letter and digit runs), lowercased. */
export function textWords(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/**
 * Light stemming (`crashes` → `crash`): crude, but applied the same to prompts and records, which
 * is all matching needs. The reranker's coverage features and the term space both use it.
 */
export function stem(word: string): string {
  return word.length > 4 ? word.replace(/(ing|ed|es|s)$/, "") : word;
}

/** The parts of one word at camelCase and letter/digit boundaries (none when it has none). */
export function splitWord(word: string): string[] {
  const parts = word
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/([A-Za-z])([0-9])/g, "$1 $2")
    .replace(/([0-9])([A-Za-z])/g, "$1 $2")
    .toLowerCase()
    .split(" ");
  if (parts.length < 2) return [];
  // Single letters and bare numbers match everything and mean nothing.
  return parts.filter((p) => p.length >= 2 && !/^[0-9]+$/.test(p));
}

/**
 * The identifier parts the tokenizer cannot see (`getUserById` → get user by id, `mlx5e` → mlx),
 * space-separated and deduplicated: the extra indexed column of a record.
 */
export function codeParts(text: string): string {
  const seen = new Set<string>();
  for (const word of text.slice(0, MAX_SCAN_CHARS).match(WORD) ?? []) {
    for (const part of splitWord(word)) seen.add(part);
  }
  return [...seen].join(" ");
}

/** A record's changed paths as one indexed text (the tokenizer splits them into parts). */
export function filesText(files: readonly string[]): string {
  return files.join(" ");
}

/**
 * The `subsystem:` prefix of a commit-style title (`ovn-northd: fix crash` → `ovn-northd`),
 * lowercased, or null. Histories that use the convention name the component this way.
 */
export function titlePrefix(title: string): string | null {
  const match = /^\s*([^\s:][^:\n]{0,39}):\s/.exec(title);
  return match ? match[1].trim().toLowerCase() : null;
}

/**
 * A prompt's search tokens: every word and identifier part, and each multi-part identifier or
 * path whole (searched as a phrase of its parts). Control characters are spaces, duplicates go
 * (first wins), at most {@linkcode MAX_QUERY_TOKENS}.
 */
export function queryTokens(query: string): string[] {
  const seen = new Set<string>();
  const tokens: string[] = [];
  const add = (token: string) => {
    if (token === "" || seen.has(token) || tokens.length >= MAX_QUERY_TOKENS) return;
    seen.add(token);
    tokens.push(token);
  };
  // deno-lint-ignore no-control-regex
  for (const raw of query.replace(/[\u0000-\u001f\u007f]/g, " ").split(/\s+/u)) {
    const words = raw.match(WORD) ?? [];
    for (const word of words) add(word.toLowerCase());
    for (const word of words) for (const part of splitWord(word)) add(part);
    // `flow_del`, `lib/netdev-dpdk.c`: the whole identifier as one phrase of its parts (a
    // camelCase name is already whole: the tokenizer keeps `getuserbyid` as one word).
    if (words.length > 1) add(words.map((w) => w.toLowerCase()).join(" "));
  }
  return tokens;
}

/** True when a query token is a stop word (phrases never are). */
export function isStopWord(token: string): boolean {
  return STOP_WORDS.has(token);
}
