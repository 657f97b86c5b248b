/**
 * XML text escaping for everything we frame for a model, and unescaping for everything a model
 * sends back.
 *
 * @module
 */

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
};

// One pass over the text: replacing `&` first in a chain of replaces is only needed when the
// replacements run one after another; a single alternation can never re-escape its own output.
const ESCAPE_PATTERN = /[&<>"']/g;

// Bounded digit counts keep the match linear and reject absurd numbers before parseInt.
const ENTITY_PATTERN = /&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,8})|#[xX]([0-9a-fA-F]{1,7}));/g;

/**
 * Escapes the five XML special characters (`& < > " '`), so text can go inside an element or an
 * attribute value and never close or open a tag.
 */
export function escapeXml(text: string): string {
  return text.replace(ESCAPE_PATTERN, (ch) => ESCAPES[ch]);
}

/**
 * Reverses {@link escapeXml} and also decodes numeric character references (`&#NN;`,
 * `&#xHH;`). A reference to a code point XML does not allow (NUL, a surrogate, beyond U+10FFFF)
 * is left as written; so is any `&` that does not start a known reference. Runs in one pass, so
 * `&amp;lt;` becomes `&lt;`, not `<`.
 */
export function unescapeXml(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(
    ENTITY_PATTERN,
    (whole, name: string | undefined, dec: string | undefined, hex: string | undefined) => {
      if (name !== undefined) return NAMED[name];
      const code = dec !== undefined ? parseInt(dec, 10) : parseInt(hex as string, 16);
      return isAllowedCodePoint(code) ? String.fromCodePoint(code) : whole;
    },
  );
}

/** XML 1.0's `Char` production: what a character reference may name. */
function isAllowedCodePoint(code: number): boolean {
  if (code === 0x9 || code === 0xa || code === 0xd) return true;
  if (code >= 0x20 && code <= 0xd7ff) return true;
  if (code >= 0xe000 && code <= 0xfffd) return true;
  return code >= 0x10000 && code <= 0x10ffff;
}
