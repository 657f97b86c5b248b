/**
 * `<private>` span scrubbing (spec §2, "Privacy scrubbing").
 *
 * Matching choices, pinned by `scrub_test.ts`:
 * - Tags are matched case-insensitively and may carry whitespace (including newlines) around the
 *   name and after the slash: `< private >`, `</PRIVATE >` and `< / private>` all count. Users type
 *   these by hand, and a near-miss spelling silently leaking the span would defeat the feature.
 * - Attributes count (`<private reason="x">` opens a span) and so does the HTML-escaped spelling
 *   (`&lt;private&gt;`, as text copied from a web page or a log arrives). Self-closing forms
 *   (`<private/>`) hide nothing and are left as text.
 * - A stray `</private>` with no open tag before it is left as is: it hides nothing, and keeping it
 *   means text without an opening tag comes back byte-identical.
 *
 * @module
 */

/** The text that replaces every `<private>` span. */
export const PRIVATE_REDACTION = "[REDACTED]";

// One alternation-free pattern: each `\s*` is anchored by a literal, so a long run of whitespace
// after a `<` is scanned once per `<` and the scan stays linear.
// Attributes are bounded (200 characters, no `<`, `>` or `/`), so a run of unclosed tags stays
// linear.
const TAG_RE = /(?:<|&lt;)\s*(\/\s*)?private(?:\s+[^<>/&]{0,200}?)?\s*(?:>|&gt;)/gi;

/**
 * Replaces every `<private>` … `</private>` span, tags included, with `[REDACTED]`.
 *
 * Nesting is depth-counted, so the outermost pair wins; an unclosed opening tag redacts to the end
 * of the string; a closing tag with no opener is kept. Text with no opening tag is returned
 * unchanged (the same string).
 *
 * @example
 * ```ts
 * scrubPrivate("a <private>b <private>c</private> d</private> e"); // "a [REDACTED] e"
 * scrubPrivate("key <PRIVATE>sk-123");                             // "key [REDACTED]"
 * ```
 */
export function scrubPrivate(text: string): string {
  return scrubPrivateFrom(text, { open: false }).text;
}

/**
 * {@linkcode scrubPrivate} for one of a sequence of strings (the strings of a JSON body, the turns
 * of a conversation): `open` says a span opened in an earlier string is still open. The first
 * string that closes it is redacted from its start to that closing tag, so a span that crosses
 * strings is redacted on both sides rather than leaked; strings without a closing tag in between
 * are scrubbed on their own (an opener never closed does not swallow the rest of a body). The
 * answer says whether a span is still open at the end.
 */
export function scrubPrivateFrom(
  text: string,
  options: { open: boolean },
): { text: string; open: boolean } {
  if (!options.open && !text.includes("<") && !/&lt;/i.test(text)) return { text, open: false };
  if (options.open && ![...text.matchAll(new RegExp(TAG_RE))].some((m) => m[1] !== undefined)) {
    return { text: scrubPrivateFrom(text, { open: false }).text, open: true };
  }
  const re = new RegExp(TAG_RE);
  let out = "";
  let cursor = 0;
  let depth = options.open ? 1 : 0;
  let spanStart = 0;
  let changed = false;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[1] === undefined) {
      if (depth === 0) spanStart = m.index;
      depth++;
    } else if (depth > 0) {
      depth--;
      if (depth === 0) {
        out += text.slice(cursor, spanStart) + PRIVATE_REDACTION;
        cursor = re.lastIndex;
        changed = true;
      }
    }
  }
  const open = depth > 0;
  if (open) {
    out += text.slice(cursor, spanStart) + PRIVATE_REDACTION;
    cursor = text.length;
    changed = true;
  }
  return { text: changed ? out + text.slice(cursor) : text, open };
}
