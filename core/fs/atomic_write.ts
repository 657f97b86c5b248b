/**
 * The one way kiro-learn replaces a file: a temporary file beside it, written and fsynced, then
 * renamed over the target, so a crash leaves the old file or the new one, never half of one.
 * The settings and token files, the spool and the installer's edits of agents' config files all
 * write through it; their differences are options. Deno APIs only: the hooks load it.
 *
 * @module
 */
import { dirname, join } from "../path.ts";

const IS_WINDOWS = Deno.build.os === "windows";

/** How {@linkcode writeFileAtomic} writes. */
export interface AtomicWriteOptions {
  /** Mode of a new file (default 0600: kiro-learn's files hold private text). */
  mode?: number;
  /** An existing file keeps its own mode (an agent's config file is not ours to tighten). */
  keepMode?: boolean;
  /** Only create: when the target exists, write nothing and return false (race-free). */
  createNew?: boolean;
  /** Also fsync the directory, so the rename itself survives a power loss (the spool). */
  syncDir?: boolean;
  /** Create missing parent directories. */
  mkdirs?: boolean;
}

/**
 * Replaces `path` with `data` atomically and durably. Returns false only with `createNew` when
 * the file already existed.
 */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): boolean {
  const dir = dirname(path);
  if (options.mkdirs) Deno.mkdirSync(dir, { recursive: true });
  let mode = options.mode ?? 0o600;
  if (options.keepMode) {
    try {
      const info = Deno.statSync(path);
      if (info.mode !== null) mode = info.mode & 0o7777;
    } catch {
      // A new file: the given mode.
    }
  }
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const tmp = join(dir, `.${crypto.randomUUID()}.tmp`);
  try {
    const file = Deno.openSync(tmp, { write: true, createNew: true, mode });
    try {
      let written = 0;
      while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
      file.syncSync();
    } finally {
      file.close();
    }
    // The mode given to open is masked by the umask; the exact mode must hold.
    if (!IS_WINDOWS) Deno.chmodSync(tmp, mode);
    if (options.createNew) {
      if (!linkNoReplace(tmp, path)) return false;
    } else {
      Deno.renameSync(tmp, path);
    }
    if (options.syncDir) syncDirectory(dir);
    return true;
  } finally {
    try {
      Deno.removeSync(tmp);
    } catch {
      // Renamed away, or never created.
    }
  }
}

/** A hard link fails if the target exists, which makes "create if absent" race-free. */
function linkNoReplace(tmp: string, path: string): boolean {
  try {
    Deno.linkSync(tmp, path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) return false;
    // Some filesystems refuse hard links; a plain check-then-rename is the best left.
    try {
      Deno.statSync(path);
      return false;
    } catch {
      Deno.renameSync(tmp, path);
      return true;
    }
  }
}

/** Makes a rename durable; some platforms cannot open a directory, so best effort. */
function syncDirectory(dir: string): void {
  if (IS_WINDOWS) return;
  try {
    const handle = Deno.openSync(dir, { read: true });
    try {
      handle.syncSync();
    } finally {
      handle.close();
    }
  } catch {
    // The file itself is already synced.
  }
}
