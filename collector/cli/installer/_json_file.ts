/**
 * Reading and writing the JSON config files of other tools (Claude Code, Kiro) without harming
 * them: an unparsable file is reported, never replaced; a file we change is re-serialised in the
 * indentation, line endings, final newline and byte-order mark it already had, so removing what
 * we added gives back the original bytes; writes are atomic, keep the file's mode and go through
 * symlinks (dotfile managers link these files) instead of replacing them.
 *
 * @module
 */
import { writeFileAtomic as atomicWrite } from "@kiro-learn/core/fs";
import { InstallError } from "./errors.ts";

/** A JSON object as parsed. */
export type JsonObject = Record<string, unknown>;

/** How a JSON file is laid out, so a rewrite looks like the original. */
export interface JsonStyle {
  /** Indentation unit ("" for a one-line file). */
  indent: string;
  /** Line ending. */
  eol: "\n" | "\r\n";
  /** Whether the file ends with a line ending. */
  finalNewline: boolean;
  /** Whether the file starts with a UTF-8 byte-order mark. */
  bom: boolean;
}

/** What a JSON config file holds right now. */
export interface JsonFileState {
  /** The path as given. */
  path: string;
  /** The file's text, or null when there is no file. */
  text: string | null;
  /** The parsed object, or undefined when there is no file. */
  doc: JsonObject | undefined;
  /** Its layout (the default layout for a missing file). */
  style: JsonStyle;
}

/** The layout of files we create: two-space indentation and a final newline. */
export const DEFAULT_STYLE: Readonly<JsonStyle> = Object.freeze({
  indent: "  ",
  eol: "\n",
  finalNewline: true,
  bom: false,
});

const DECODER = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Reads a JSON file that must hold an object. Returns `text: null` when it does not exist; throws
 * {@linkcode InstallError} (naming the file and the problem) when it cannot be read or parsed, so
 * callers can gather every problem before failing.
 */
export function readJsonFile(path: string): JsonFileState {
  const text = readTextOrNull(path);
  if (text === null) return { path, text: null, doc: undefined, style: { ...DEFAULT_STYLE } };
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === "") {
    throw new InstallError(
      `${path} is empty, which is not valid JSON: put {} in it or delete it, then run again.`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    // JSONC (comments) is the common case: say so, since the parser's message does not.
    if (/^\s*(?:\/\/|\/\*)/m.test(body)) {
      throw new InstallError(
        `${path} has comments (JSON with comments), which kiro-learn cannot keep when it ` +
          "rewrites the file: remove the comments, or add kiro-learn's entries by hand " +
          "(see `kiro-learn install --dry-run`), then run again.",
      );
    }
    throw new InstallError(
      `${path} is not valid JSON (${describeParseError(error)}); kiro-learn will not ` +
        `overwrite it. Fix the file (or move it away), then run again.`,
    );
  }
  if (!isPlainObject(parsed)) {
    throw new InstallError(
      `${path} must hold a JSON object ({ ... }) but holds ${describeJsonType(parsed)}; ` +
        `kiro-learn will not overwrite it. Fix the file (or move it away), then run again.`,
    );
  }
  return { path, text, doc: parsed, style: detectJsonStyle(text, parsed) };
}

/**
 * Reads a file as UTF-8 text, or returns null when it does not exist. Throws
 * {@linkcode InstallError} for a folder, an unreadable file or bytes that are not UTF-8.
 */
export function readTextOrNull(path: string): string | null {
  let bytes: Uint8Array;
  try {
    if (!Deno.statSync(path).isFile) {
      throw new InstallError(`${path} exists but is not a file; move it away, then run again.`);
    }
    bytes = Deno.readFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    if (error instanceof InstallError) throw error;
    throw new InstallError(
      `cannot read ${path} (${(error as Error).message}); fix its permissions, then run again.`,
    );
  }
  try {
    return DECODER.decode(bytes);
  } catch {
    throw new InstallError(
      `${path} is not UTF-8 text; kiro-learn will not overwrite it. Fix or move it away.`,
    );
  }
}

/** Guesses the layout of a JSON text (the object it parsed to decides the one-line case). */
export function detectJsonStyle(text: string, doc?: unknown): JsonStyle {
  const bom = text.charCodeAt(0) === 0xfeff;
  const body = bom ? text.slice(1) : text;
  const eol = body.includes("\r\n") ? "\r\n" : "\n";
  const finalNewline = body.endsWith("\n");
  const trimmed = body.trimEnd();
  let indent = "  ";
  if (!trimmed.includes("\n")) {
    // A one-line "{}" gets the default layout once we add to it; other one-liners stay one line.
    const empty = isPlainObject(doc) ? Object.keys(doc).length === 0 : trimmed === "{}";
    indent = empty ? "  " : "";
  } else {
    const match = /^[ \t]*[{[][ \t]*\r?\n([ \t]+)\S/.exec(body);
    if (match) indent = match[1];
  }
  return { indent, eol, finalNewline, bom };
}

/** Serialises `doc` in `style`. */
export function serializeJson(doc: unknown, style: JsonStyle = DEFAULT_STYLE): string {
  let text = JSON.stringify(doc, null, style.indent === "" ? undefined : style.indent);
  if (style.eol === "\r\n") text = text.replaceAll("\n", "\r\n");
  if (style.finalNewline) text += style.eol;
  return style.bom ? "\ufeff" + text : text;
}

/** Options for {@linkcode writeFileAtomic}. */
export interface WriteFileAtomicOptions {
  /** Mode for a new file (an existing file keeps its own). Defaults to 0644 less the umask. */
  mode?: number;
}

/**
 * Writes `text` to `path` atomically (temp file, fsync, rename), creating missing parent dirs.
 * An existing file keeps its mode; a symlink keeps pointing where it did and its target is
 * replaced instead.
 */
export function writeFileAtomic(
  path: string,
  text: string,
  options: WriteFileAtomicOptions = {},
): void {
  atomicWrite(resolveLink(path), text, {
    mode: options.mode ?? 0o644,
    keepMode: true,
    mkdirs: true,
  });
}

/** Deletes a file; a symlink is deleted itself (its target is someone else's). */
export function deleteFile(path: string): void {
  try {
    Deno.removeSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/** True for a non-null, non-array object. */
export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True for `{}`, `[]`, or objects holding nothing but such empty containers. */
export function isHollow(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (!isPlainObject(value)) return false;
  return Object.values(value).every(isHollow);
}

/** A plain deep copy of a JSON value. */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : JSON.parse(JSON.stringify(value));
}

function resolveLink(path: string): string {
  try {
    if (Deno.lstatSync(path).isSymlink) return Deno.realPathSync(path);
  } catch {
    // Missing, or a dangling link: write the path itself.
  }
  return path;
}

function describeParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // V8 quotes the whole text in some messages; a multi-megabyte ~/.claude.json must not be echoed.
  const token = /^Unexpected token '(.+?)', /s.exec(message);
  if (token) {
    const hint = token[1] === "/" || token[1] === "#" ? " (comments are not allowed in JSON)" : "";
    return `unexpected ${JSON.stringify(token[1])}${hint}`;
  }
  return message.length > 200 ? message.slice(0, 200) + "…" : message;
}

function describeJsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
