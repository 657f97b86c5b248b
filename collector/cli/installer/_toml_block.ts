/**
 * kiro-learn's entries in a TOML file that is the user's (Codex's `config.toml`): one marked
 * block of our own tables, appended at the end and taken out again byte for byte. Nothing
 * outside the block is ever parsed or rewritten, so the user's comments, ordering, spacing and
 * line endings stay exactly as they were. The block starts with the newline that separates it
 * from what precedes it, so taking it out restores the file's bytes (a file without a final
 * newline included). A block at the very start of a file (one we created) has no such newline.
 *
 * Adding tables at the end of a TOML document is valid unless the document already defines one
 * of their names: {@linkcode definedTables} finds a file's table headers (outside our block) so
 * the caller can leave out, or refuse, a table the user has.
 *
 * @module
 */
import { InstallError } from "./errors.ts";

/** The block's first line. */
export const TOML_BLOCK_BEGIN =
  "# >>> kiro-learn: added by `kiro-learn install`, removed by `kiro-learn uninstall` >>>";

/** The block's last line. */
export const TOML_BLOCK_END = "# <<< kiro-learn <<<";

/** Where our block is in `text` (`start` includes its leading newline), or null. */
export function findTomlBlock(
  text: string,
  path: string,
): { start: number; end: number } | null {
  const begin = text.startsWith(TOML_BLOCK_BEGIN + "\n")
    ? 0
    : text.indexOf("\n" + TOML_BLOCK_BEGIN + "\n");
  if (begin < 0) {
    if (lineIndex(text, TOML_BLOCK_END) >= 0) throw markerProblem(path, "end", "start");
    return null;
  }
  const closing = lineIndex(text.slice(begin + 1), TOML_BLOCK_END);
  if (closing < 0) throw markerProblem(path, "start", "end");
  let end = begin + 1 + closing + TOML_BLOCK_END.length;
  if (text[end] === "\n") end++;
  if (lineIndex(text.slice(end), TOML_BLOCK_BEGIN) >= 0) {
    throw new InstallError(
      `${path}: kiro-learn's block appears twice; remove one (the lines between ` +
        `"${TOML_BLOCK_BEGIN}" and "${TOML_BLOCK_END}"), then run again.`,
    );
  }
  return { start: begin, end };
}

function markerProblem(path: string, has: string, lacks: string): InstallError {
  return new InstallError(
    `${path} has the ${has} line of kiro-learn's block but not its ${lacks} line ` +
      `("${has === "start" ? TOML_BLOCK_END : TOML_BLOCK_BEGIN}"): kiro-learn will not guess ` +
      "which lines are its own. Remove the block's lines by hand, then run again.",
  );
}

/** The index where a line equal to `line` starts in `text`, or -1. */
function lineIndex(text: string, line: string): number {
  let from = 0;
  while (true) {
    const at = text.indexOf(line, from);
    if (at < 0) return -1;
    const after = text[at + line.length];
    if ((at === 0 || text[at - 1] === "\n") && (after === undefined || after === "\n")) return at;
    from = at + 1;
  }
}

/** `text` without our block (unchanged when it has none). */
export function withoutTomlBlock(text: string, path: string): string {
  const found = findTomlBlock(text, path);
  return found === null ? text : text.slice(0, found.start) + text.slice(found.end);
}

/**
 * `text` with our block holding `body` (TOML lines, each ending in a newline): replaced where it
 * stands, or appended. An empty `body` takes the block out.
 */
export function withTomlBlock(text: string, body: string, path: string): string {
  const found = findTomlBlock(text, path);
  const base = found === null ? text : text.slice(0, found.start) + text.slice(found.end);
  if (body === "") return base;
  const at = found === null ? base.length : found.start;
  const lead = at === 0 ? "" : "\n";
  const block = `${lead}${TOML_BLOCK_BEGIN}\n${body}${TOML_BLOCK_END}\n`;
  // A block put back where it stood keeps its place; a new one goes at the end (after a final
  // line that lacks its newline, which the block's own leading newline then ends).
  return base.slice(0, at) + block + base.slice(at);
}

// deno-lint-ignore no-control-regex
const TOML_ESCAPED = /[\\"\u0000-\u001f\u007f]/g;

/** A TOML basic string: quoted, with `"`, `\` and control characters escaped. */
export function tomlString(value: string): string {
  return `"${
    value.replace(TOML_ESCAPED, (c) => {
      const named: Record<string, string> = {
        "\\": "\\\\",
        '"': '\\"',
        "\b": "\\b",
        "\t": "\\t",
        "\n": "\\n",
        "\f": "\\f",
        "\r": "\\r",
      };
      return named[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
    })
  }"`;
}

/**
 * The names `text` defines outside our block: its table headers (`[a."b c".d]` as
 * `["a", "b c", "d"]`, array tables included) and the full names of its keys (the table they are
 * under, then the key, dotted keys split). Enough to tell whether one of our tables would clash
 * with the user's; not a TOML parser.
 */
export function tomlNames(text: string, path: string): { tables: string[][]; keys: string[][] } {
  const outside = withoutTomlBlock(text, path);
  const tables: string[][] = [];
  const keys: string[][] = [];
  let current: string[] = [];
  let multiline: string | null = null;
  for (const raw of outside.split("\n")) {
    const line = raw.replace(/\r$/, "");
    if (multiline !== null) {
      if (line.includes(multiline)) multiline = null;
      continue;
    }
    const header = /^\s*\[\[?\s*(.+?)\s*\]\]?\s*(#.*)?$/.exec(line);
    if (header) {
      current = parseKey(header[1]);
      tables.push(current);
      continue;
    }
    const assign = KEY_LINE.exec(line);
    if (!assign) continue;
    keys.push([...current, ...parseKey(assign[1])]);
    // A multi-line string's lines are not keys.
    const opener = /^\s*("""|\'\'\')/.exec(assign[2]);
    if (opener && !assign[2].trimStart().slice(3).includes(opener[1])) multiline = opener[1];
  }
  return { tables, keys };
}

const KEY_PART = String.raw`(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')`;
const KEY_LINE = new RegExp(String.raw`^\s*(${KEY_PART}(?:\s*\.\s*${KEY_PART})*)\s*=(.*)$`);

/** Whether one name is the other or lies under it. */
export function nested(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The parts of a TOML key (`a."b.c".d` as `["a", "b.c", "d"]`). */
export function parseKey(key: string): string[] {
  const parts: string[] = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(?:\.|$)/y;
  let match;
  while (re.lastIndex < key.length && (match = re.exec(key)) !== null) {
    parts.push(
      match[1] !== undefined ? JSON.parse(`"${match[1]}"`) : match[2] ?? match[3],
    );
  }
  return parts;
}

/** A TOML key for `parts`, each part quoted unless it is a bare key. */
export function tomlKey(parts: readonly string[]): string {
  return parts.map((p) => /^[A-Za-z0-9_-]+$/.test(p) ? p : tomlString(p)).join(".");
}
