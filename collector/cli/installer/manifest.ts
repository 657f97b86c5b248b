/**
 * The install manifest (`<dataDir>/install-manifest.json`): which files an install created, which
 * empty containers were already in the files it merged into, and which folders it made. It lets
 * uninstall remove exactly what install added — a file we created goes, an `"hooks": {}` the user
 * already had stays — and lets a later install find entries it made in other projects.
 *
 * Without a manifest (deleted, or an install by another version) everything still works from the
 * marker on our hook commands; only "did we create this file" has to be guessed conservatively.
 *
 * @module
 */
import { dataPaths, INSTALL_MANIFEST_FILE } from "@kiro-learn/core/settings";
import { isHollow, isPlainObject, type JsonObject, readTextOrNull } from "./_json_file.ts";
import { TARGET_KINDS, type TargetKind } from "./_targets.ts";

/** File name of the manifest inside the data dir (`DataPaths.installManifest`). */
export const MANIFEST_FILE: string = INSTALL_MANIFEST_FILE;

/** What the manifest remembers about one file. */
export interface ManifestRecord {
  /** The kind of file. */
  kind: TargetKind;
  /** True when the first install created the file. */
  created: boolean;
  /** Key paths of empty containers the file held before the first install (kept on uninstall). */
  keep: string[][];
  /**
   * SHA-256 (hex) of the content the last install wrote, for a file install created or owns
   * whole: uninstall deletes such a file only while it still holds exactly that (or, for a file
   * wholly ours, is recognisably ours), never on the record's word alone.
   */
  sha256?: string;
}

/** The manifest. */
export interface Manifest {
  /** Format version. */
  version: 1;
  /** Records by absolute path. */
  files: Record<string, ManifestRecord>;
  /** Folders an install created (removed on uninstall when empty). */
  dirs: string[];
}

/** An empty manifest. */
export function emptyManifest(): Manifest {
  return { version: 1, files: {}, dirs: [] };
}

/** The manifest path for a data dir. */
export function manifestPath(dataDir: string): string {
  return dataPaths(dataDir).installManifest;
}

/**
 * Reads the manifest. A missing file gives an empty manifest; an unreadable or malformed one too,
 * with a warning (it is our own file, so it is safe to replace).
 */
export function readManifest(
  path: string,
): { manifest: Manifest; text: string | null; warning?: string } {
  let text: string | null;
  try {
    text = readTextOrNull(path);
  } catch (error) {
    return { manifest: emptyManifest(), text: null, warning: (error as Error).message };
  }
  if (text === null) return { manifest: emptyManifest(), text };
  try {
    return { manifest: parseManifest(JSON.parse(text)), text };
  } catch (error) {
    return {
      manifest: emptyManifest(),
      text,
      warning: `${path} is damaged (${(error as Error).message}); it will be rewritten, and ` +
        `entries kiro-learn added are recognised by their marker instead.`,
    };
  }
}

/** Serialises a manifest deterministically (paths sorted), so reinstalling changes no byte. */
export function serializeManifest(manifest: Manifest): string {
  const files: Record<string, ManifestRecord> = {};
  for (const path of Object.keys(manifest.files).sort()) {
    const record = manifest.files[path];
    files[path] = {
      kind: record.kind,
      created: record.created,
      keep: [...record.keep].sort(comparePaths),
      ...(record.sha256 === undefined ? {} : { sha256: record.sha256 }),
    };
  }
  const dirs = [...new Set(manifest.dirs)].sort();
  return JSON.stringify({ version: 1, files, dirs }, null, 2) + "\n";
}

/** Every object-key path of `doc` that holds an empty container, however deep. */
export function hollowPaths(doc: JsonObject): string[][] {
  const out: string[][] = [];
  const walk = (value: JsonObject, prefix: string[]) => {
    for (const [key, inner] of Object.entries(value)) {
      const path = [...prefix, key];
      if (isHollow(inner)) out.push(path);
      if (isPlainObject(inner)) walk(inner, path);
    }
  };
  walk(doc, []);
  return out;
}

/** Object-key paths that hold something in `before` and are empty containers in `after`. */
export function hollowedPaths(before: JsonObject, after: JsonObject): string[][] {
  const out: string[][] = [];
  const walk = (b: JsonObject, a: JsonObject, prefix: string[]) => {
    for (const [key, inner] of Object.entries(a)) {
      const path = [...prefix, key];
      if (!(key in b)) continue;
      if (isHollow(inner) && !isHollow(b[key])) out.push(path);
      if (isPlainObject(inner) && isPlainObject(b[key])) walk(b[key] as JsonObject, inner, path);
    }
  };
  walk(before, after, []);
  return out;
}

/** Deletes the key at `path` from `doc`, if there is one. */
export function deletePath(doc: JsonObject, path: readonly string[]): void {
  let node: unknown = doc;
  for (const key of path.slice(0, -1)) {
    if (!isPlainObject(node)) return;
    node = node[key];
  }
  if (isPlainObject(node)) delete node[path[path.length - 1]];
}

/** True when two key paths are equal. */
export function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((key, i) => key === b[i]);
}

function parseManifest(value: unknown): Manifest {
  if (!isPlainObject(value) || value.version !== 1 || !isPlainObject(value.files)) {
    throw new Error("not a version 1 manifest");
  }
  const files: Record<string, ManifestRecord> = {};
  for (const [path, record] of Object.entries(value.files)) {
    if (
      !isPlainObject(record) || !TARGET_KINDS.includes(record.kind as TargetKind) ||
      typeof record.created !== "boolean" || !Array.isArray(record.keep) ||
      !record.keep.every((p) => Array.isArray(p) && p.every((k) => typeof k === "string")) ||
      (record.sha256 !== undefined &&
        (typeof record.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(record.sha256)))
    ) {
      throw new Error(`bad record for ${path}`);
    }
    files[path] = {
      kind: record.kind as TargetKind,
      created: record.created,
      keep: record.keep as string[][],
      ...(record.sha256 === undefined ? {} : { sha256: record.sha256 as string }),
    };
  }
  const dirs = Array.isArray(value.dirs) ? value.dirs.filter((d) => typeof d === "string") : [];
  return { version: 1, files, dirs };
}

function comparePaths(a: string[], b: string[]): number {
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
