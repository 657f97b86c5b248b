/**
 * A small, forgiving, linear-time scanner for the XML-ish text models send back.
 *
 * Model output is not well-formed XML (prose around it, code fences, unescaped `&`, truncated
 * tails), so a real XML parser would reject most of it. This scanner finds `<name ...>inner</name>`
 * spans with `indexOf` and cursors that only move forward, never with backtracking regular
 * expressions, so adversarial input (a megabyte of unclosed tags) costs one pass.
 *
 * @module
 */
import { unescapeXml } from "./escape.ts";

/** One element the scanner found. */
export interface ScannedElement {
  /** The raw text between the tag name and the closing `>` (or `/>`) of the open tag. */
  attrs: string;
  /** The raw (still escaped) text between the open and the close tag; "" when self-closing. */
  inner: string;
  /** True for `<name ... />`. */
  selfClosing: boolean;
}

/** Options for {@link scanElements}. */
export interface ScanOptions {
  /** Stop after this many elements. */
  limit?: number;
}

/**
 * Finds every non-nested `<name>` element in `text`, in order.
 *
 * An open tag without its close tag before the next open tag of the same name is skipped, so one
 * truncated element never swallows the ones after it. `<name` must be followed by whitespace,
 * `>` or `/` (so `<file` does not match `<files>`).
 */
export function scanElements(
  text: string,
  name: string,
  options: ScanOptions = {},
): ScannedElement[] {
  const limit = options.limit ?? Infinity;
  const out: ScannedElement[] = [];
  const openTag = "<" + name;
  const closeTag = "</" + name;
  const nextGt = forwardFinder(text, ">");
  const nextClose = forwardFinder(text, closeTag);
  let open = text.indexOf(openTag);
  while (open >= 0 && out.length < limit) {
    const afterName = open + openTag.length;
    const nextOpen = text.indexOf(openTag, afterName);
    const bound = nextOpen < 0 ? text.length : nextOpen;
    if (isNameBoundary(text, afterName)) {
      const gt = nextGt(afterName);
      if (gt >= 0 && gt < bound) {
        const selfClosing = gt > afterName && text.charCodeAt(gt - 1) === 47; // "/"
        if (selfClosing) {
          out.push({ attrs: text.slice(afterName, gt - 1), inner: "", selfClosing: true });
        } else {
          let close = nextClose(gt + 1);
          while (close >= 0 && close < bound && !isNameBoundary(text, close + closeTag.length)) {
            close = nextClose(close + 1);
          }
          if (close >= 0 && close < bound) {
            out.push({
              attrs: text.slice(afterName, gt),
              inner: text.slice(gt + 1, close),
              selfClosing: false,
            });
          }
        }
      }
    }
    open = nextOpen;
  }
  return out;
}

/** True when `text` holds an open tag `<name` followed by a tag-name boundary (or the end). */
export function hasOpenTag(text: string, name: string): boolean {
  return findOpenTag(text, name) >= 0;
}

/** Index of the first `<name` followed by a tag-name boundary (or the end), or -1. */
export function findOpenTag(text: string, name: string): number {
  const openTag = "<" + name;
  let at = text.indexOf(openTag);
  while (at >= 0) {
    const after = at + openTag.length;
    if (after >= text.length || isNameBoundary(text, after)) return at;
    at = text.indexOf(openTag, after);
  }
  return -1;
}

/**
 * Parses the attribute text of an open tag into a map. Values may be quoted with `"` or `'`, or
 * unquoted; they are unescaped. Names are lower-cased. Parsing stops at anything it cannot read.
 */
export function parseAttributes(attrs: string): Map<string, string> {
  const out = new Map<string, string>();
  const n = attrs.length;
  let i = 0;
  while (i < n) {
    while (i < n && isSpace(attrs.charCodeAt(i))) i++;
    const nameStart = i;
    while (i < n && isAttrNameChar(attrs.charCodeAt(i))) i++;
    if (i === nameStart) break;
    const name = attrs.slice(nameStart, i).toLowerCase();
    while (i < n && isSpace(attrs.charCodeAt(i))) i++;
    if (attrs[i] !== "=") {
      if (!out.has(name)) out.set(name, "");
      continue;
    }
    i++;
    while (i < n && isSpace(attrs.charCodeAt(i))) i++;
    const quote = attrs[i];
    let value: string;
    if (quote === '"' || quote === "'") {
      const end = attrs.indexOf(quote, i + 1);
      if (end < 0) break;
      value = attrs.slice(i + 1, end);
      i = end + 1;
    } else {
      const valueStart = i;
      while (i < n && !isSpace(attrs.charCodeAt(i))) i++;
      value = attrs.slice(valueStart, i);
    }
    if (!out.has(name)) out.set(name, unescapeXml(value));
  }
  return out;
}

/**
 * The text content of an element: trimmed, a `<![CDATA[...]]>` wrapper taken literally,
 * otherwise unescaped, then trimmed again.
 */
export function elementText(inner: string): string {
  const trimmed = inner.trim();
  if (trimmed.startsWith("<![CDATA[") && trimmed.endsWith("]]>")) {
    return trimmed.slice(9, -3).trim();
  }
  return unescapeXml(trimmed).trim();
}

/**
 * Returns a function giving the first index of `needle` at or after `pos`, reusing the last
 * answer while it is still ahead; with non-decreasing `pos` every character is searched once.
 */
function forwardFinder(text: string, needle: string): (pos: number) => number {
  let lastPos = -1;
  let at = -2;
  return (pos: number) => {
    if (pos < lastPos || at === -2 || (at >= 0 && at < pos)) {
      at = text.indexOf(needle, pos);
    }
    lastPos = pos;
    return at;
  };
}

function isNameBoundary(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code === 62 || code === 47 || isSpace(code); // ">" "/" whitespace
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

function isAttrNameChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) || code === 95 || code === 45 || code === 58 || code === 46;
}
