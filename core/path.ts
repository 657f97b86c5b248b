/**
 * The few path operations core needs (`join`, `resolve`, `dirname`, `isAbsolute`, `sep`,
 * `fromFileUrl`), without `node:path`: a shim loads this on every hook, and `node:path` plus
 * `node:crypto` cost about 15 ms of start-up.
 *
 * On POSIX these behave exactly like `node:path` (a property test checks it). On Windows they
 * accept `\` and `/` as separators, write `\`, and know drive roots (`C:\`) and `\` roots;
 * drive-relative paths (`C:foo`) and UNC shares get no special treatment.
 *
 * @module
 */

/** How one platform spells paths. */
export interface PathFlavor {
  /** The separator written between segments. */
  sep: string;
  /** Length of the root prefix of `path` (`/`, `C:\`, `\`), 0 when relative. */
  rootLength(path: string): number;
  /** True for a separator character. */
  isSep(ch: string): boolean;
  /** The root as written back (`/`, `C:\`). */
  formatRoot(root: string): string;
  /** POSIX keeps `//x`'s dirname as `//` (as `node:path` does). */
  posix: boolean;
}

/** POSIX paths. */
export const POSIX: PathFlavor = {
  sep: "/",
  rootLength: (path) => (path.startsWith("/") ? 1 : 0),
  isSep: (ch) => ch === "/",
  formatRoot: () => "/",
  posix: true,
};

/** Windows paths (drive and `\` roots; `/` accepted as a separator). */
export const WINDOWS: PathFlavor = {
  sep: "\\",
  rootLength: (path) => {
    if (/^[A-Za-z]:[\\/]/.test(path)) return 3;
    return /^[\\/]/.test(path) ? 1 : 0;
  },
  isSep: (ch) => ch === "/" || ch === "\\",
  formatRoot: (root) => root.replaceAll("/", "\\"),
  posix: false,
};

const CURRENT: PathFlavor = Deno.build.os === "windows" ? WINDOWS : POSIX;

/** This platform's separator. */
export const sep: string = CURRENT.sep;

/**
 * True when `path` is `dir` or lies below it, after both are normalized: `/a/b/../c` is not
 * inside `/a/b`, and `/a/bc` is not inside `/a/b`. Both should be absolute (or both relative
 * to the same folder); nothing is read from disk, so a symlink is not followed.
 */
export function isInside(path: string, dir: string, flavor: PathFlavor = CURRENT): boolean {
  const trim = (p: string) => {
    const n = normalize(p, flavor);
    let end = n.length;
    while (end > Math.max(flavor.rootLength(n), 1) && flavor.isSep(n[end - 1])) end--;
    return n.slice(0, end);
  };
  const child = trim(path);
  const parent = trim(dir);
  if (child === parent) return true;
  const prefix = flavor.isSep(parent[parent.length - 1]) ? parent : parent + flavor.sep;
  return child.startsWith(prefix);
}

/** True when `path` starts at a root. */
export function isAbsolute(path: string, flavor: PathFlavor = CURRENT): boolean {
  return flavor.rootLength(path) > 0;
}

/** `path` with `.`, `..` and repeated separators resolved (a trailing separator is kept). */
export function normalize(path: string, flavor: PathFlavor = CURRENT): string {
  if (path === "") return ".";
  const rootLength = flavor.rootLength(path);
  const root = rootLength > 0 ? flavor.formatRoot(path.slice(0, rootLength)) : "";
  const rest = path.slice(rootLength);
  const trailing = rest !== "" && flavor.isSep(path[path.length - 1]);
  let body = segments(rest, rootLength === 0, flavor).join(flavor.sep);
  if (body === "") return root !== "" ? root : trailing ? "." + flavor.sep : ".";
  if (trailing) body += flavor.sep;
  return root + body;
}

/** The non-empty `parts` joined with the separator and normalized (`"."` for none). */
export function join(...parts: string[]): string {
  return joinWith(CURRENT, ...parts);
}

/** {@linkcode join} for a given flavor. */
export function joinWith(flavor: PathFlavor, ...parts: string[]): string {
  const kept = parts.filter((part) => part !== "");
  return kept.length === 0 ? "." : normalize(kept.join(flavor.sep), flavor);
}

/**
 * The absolute path `parts` lead to, read right to left until one is absolute, against the
 * current directory otherwise; normalized, without a trailing separator.
 */
export function resolve(...parts: string[]): string {
  return resolveWith(CURRENT, () => Deno.cwd(), ...parts);
}

/** {@linkcode resolve} for a given flavor and current directory. */
export function resolveWith(flavor: PathFlavor, cwd: () => string, ...parts: string[]): string {
  let path = "";
  for (let i = parts.length - 1; i >= -1; i--) {
    const part = i >= 0 ? parts[i] : cwd();
    if (part === "") continue;
    path = path === "" ? part : part + flavor.sep + path;
    if (flavor.rootLength(part) > 0) break;
  }
  const rootLength = flavor.rootLength(path);
  const body = segments(path.slice(rootLength), rootLength === 0, flavor).join(flavor.sep);
  if (rootLength > 0) return flavor.formatRoot(path.slice(0, rootLength)) + body;
  return body === "" ? "." : body;
}

/** The parent of `path` (`"."` for a bare name, the root for a root). */
export function dirname(path: string, flavor: PathFlavor = CURRENT): string {
  if (path === "") return ".";
  const rootLength = flavor.rootLength(path);
  let end = -1;
  let matchedSep = true;
  for (let i = path.length - 1; i >= Math.max(rootLength, 1); i--) {
    if (flavor.isSep(path[i])) {
      if (!matchedSep) {
        end = i;
        break;
      }
    } else {
      matchedSep = false;
    }
  }
  if (end === -1) return rootLength > 0 ? path.slice(0, rootLength) : ".";
  if (flavor.posix && rootLength === 1 && end === 1) return "//";
  return path.slice(0, end);
}

/** The file path of a `file:` URL, percent-decoding it (`%20` → space). */
export function fromFileUrl(url: string | URL, flavor: PathFlavor = CURRENT): string {
  const parsed = url instanceof URL ? url : new URL(url);
  if (parsed.protocol !== "file:") throw new TypeError(`not a file: URL: ${parsed.href}`);
  const path = decodeURIComponent(parsed.pathname);
  if (flavor.posix) return path;
  // file:///C:/x → C:\x; file://server/share/x → \\server\share\x.
  const local = /^\/[A-Za-z]:\//.test(path) ? path.slice(1) : path;
  const windows = local.replaceAll("/", "\\");
  return parsed.hostname !== "" ? `\\\\${parsed.hostname}${windows}` : windows;
}

function segments(rest: string, allowAboveRoot: boolean, flavor: PathFlavor): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i <= rest.length; i++) {
    if (i < rest.length && !flavor.isSep(rest[i])) continue;
    const segment = rest.slice(start, i);
    start = i + 1;
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (allowAboveRoot) out.push("..");
    } else {
      out.push(segment);
    }
  }
  return out;
}
