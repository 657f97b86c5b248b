/**
 * A repository's remote, read from its git config file without running `git` (shims start in
 * a few tens of ms and stay npm-free; a `git` child would cost more than the whole hook), and
 * normalized so every clone of one repository, on any machine and over any transport, spells
 * it the same way.
 *
 * @module
 */
import { isAbsolute, normalize, resolve } from "../path.ts";

/** The remote a project's identity is derived from. */
export interface GitRemote {
  /** The remote's name in the config (`origin`, `upstream`, …). */
  name: string;
  /**
   * The normalized URL: `host/path` for network remotes, `file:///abs/path` for local ones.
   * Never holds a user name, password, token, port, query or fragment, so it may be shown
   * and logged.
   */
  url: string;
}

/**
 * The remote a repository's identity comes from: `origin` when it has a URL, else the first
 * remote with a URL in config-file order. `null` when there is none, or when the chosen URL
 * is a form {@linkcode normalizeRemoteUrl} does not know (then the path decides, as before).
 *
 * Only the repository's own `config` file is read: `include`/`includeIf` files and
 * `url.<base>.insteadOf` rewrites are not followed, so a URL defined only there is not seen.
 */
export function chooseRemote(configText: string, options: { base: string }): GitRemote | null {
  const remotes = parseRemoteUrls(configText);
  const origin = remotes.get("origin");
  const name = origin !== undefined && origin.length > 0
    ? "origin"
    : [...remotes.keys()].find((n) => remotes.get(n)!.length > 0);
  if (name === undefined) return null;
  // A remote may list several URLs; git fetches from the first.
  const url = normalizeRemoteUrl(remotes.get(name)![0], options);
  return url === null ? null : { name, url };
}

/**
 * Every `[remote "<name>"]` section's `url` values, remotes in the order they first appear.
 * Follows git's config syntax: case-insensitive section and key names, case-sensitive
 * subsection names (the legacy `[remote.name]` form is lower-cased), `#`/`;` comments,
 * double quotes, backslash escapes and line continuations.
 */
export function parseRemoteUrls(configText: string): Map<string, string[]> {
  const remotes = new Map<string, string[]>();
  let current: string | null = null;
  const lines = joinContinuations(configText.split(/\r?\n/));
  for (const raw of lines) {
    const line = raw.trimStart();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    if (line.startsWith("[")) {
      current = remoteSection(line);
      if (current !== null && !remotes.has(current)) remotes.set(current, []);
      // A variable may follow the header on the same line (`[remote "o"] url = x`).
      const close = headerEnd(line);
      const rest = close < 0 ? "" : line.slice(close + 1).trim();
      if (rest === "" || current === null) continue;
      collectUrl(rest, remotes.get(current)!);
      continue;
    }
    if (current !== null) collectUrl(line, remotes.get(current)!);
  }
  return remotes;
}

/**
 * One spelling for every way of naming a repository, or `null` for a form this does not
 * know (remote helpers such as `codecommit::…`, an empty value).
 *
 * - scp-like `[user@]host:path`, `ssh://`, `git+ssh://`, `git://`, `http(s)://`, `ftp(s)://`
 *   all become `host/path`: the transport is dropped (teammates clone one repository over
 *   SSH and HTTPS alike), and so are the user, password or token, the port (a self-hosted
 *   GitLab serves SSH on 2222 and HTTPS on 443 for the same repository; two different
 *   repositories at one host and path on two ports is not a setup anyone runs), the query and
 *   the fragment;
 * - the host is lower-cased (DNS is case-insensitive); the path keeps its case, because many
 *   servers are case-sensitive and merging two projects is worse than splitting one;
 * - one trailing `.git` and trailing slashes go, repeated slashes collapse, a leading `/` of
 *   the path goes (`git@host:o/r` and `https://host/o/r` are the same repository);
 * - local paths (`/srv/git/app.git`, `../app`, `file:///srv/git/app`) become
 *   `file://<absolute path>`, relative ones resolved against `base` (the work tree), lexically
 *   (realpath would need read permission a shim may not have, and every process must agree).
 */
export function normalizeRemoteUrl(url: string, options: { base: string }): string | null {
  const value = url.trim();
  if (value === "" || /^[A-Za-z][A-Za-z0-9+.-]*::/.test(value)) return null;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/s.exec(value);
  if (scheme !== null) {
    const kind = scheme[1].toLowerCase();
    if (kind === "file") return localUrl(fileUrlPath(scheme[2]), options.base);
    if (!NETWORK_SCHEMES.has(kind)) return null;
    return networkUrl(scheme[2]);
  }
  // git's own rule: a colon before any slash makes it scp-like (`host:path`); otherwise it is
  // a local path.
  const colon = value.indexOf(":");
  const slash = value.indexOf("/");
  if (colon > 0 && (slash < 0 || colon < slash)) {
    const at = value.lastIndexOf("@", colon);
    const host = value.slice(at + 1, colon);
    return joinHostPath(host, value.slice(colon + 1));
  }
  return localUrl(value, options.base);
}

const NETWORK_SCHEMES = new Set([
  "ssh",
  "git+ssh",
  "ssh+git",
  "git",
  "http",
  "https",
  "ftp",
  "ftps",
]);

// `[user[:password]@]host[:port][/path][?query][#fragment]` after the `scheme://`.
function networkUrl(rest: string): string | null {
  const cut = rest.search(/[?#]/);
  const withoutQuery = cut < 0 ? rest : rest.slice(0, cut);
  const slash = withoutQuery.indexOf("/");
  const authority = slash < 0 ? withoutQuery : withoutQuery.slice(0, slash);
  const path = slash < 0 ? "" : withoutQuery.slice(slash);
  const hostPort = authority.slice(authority.lastIndexOf("@") + 1);
  const host = hostPort.startsWith("[")
    ? hostPort.slice(0, hostPort.indexOf("]") + 1)
    : hostPort.replace(/:\d*$/, "");
  return joinHostPath(host, path);
}

function joinHostPath(host: string, path: string): string | null {
  const cleanHost = host.toLowerCase();
  const cleanPath = trimRepoPath(path.replace(/\/+/g, "/").replace(/^\//, ""));
  if (cleanHost === "" || cleanPath === "") return null;
  return `${cleanHost}/${cleanPath}`;
}

function localUrl(path: string, base: string): string | null {
  if (path === "") return null;
  const absolute = normalize(isAbsolute(path) ? path : resolve(base, path));
  const trimmed = trimRepoPath(absolute.replace(/\/\.git\/*$/, ""));
  if (trimmed === "") return null;
  return `file://${trimmed.startsWith("/") ? "" : "/"}${trimmed}`;
}

// `file:///abs`, `file://localhost/abs` and `file:/abs`-like leftovers all name `/abs`.
function fileUrlPath(rest: string): string {
  const decoded = safeDecode(rest);
  if (decoded.startsWith("/")) return decoded;
  const slash = decoded.indexOf("/");
  return slash < 0 ? "" : decoded.slice(slash);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function trimRepoPath(path: string): string {
  let out = path.replace(/\/+$/, "");
  if (out.endsWith(".git")) out = out.slice(0, -4);
  return out.replace(/\/+$/, "");
}

function joinContinuations(lines: string[]): string[] {
  const out: string[] = [];
  let pending = "";
  for (const line of lines) {
    if (endsWithContinuation(line)) {
      pending += line.slice(0, -1);
      continue;
    }
    out.push(pending + line);
    pending = "";
  }
  if (pending !== "") out.push(pending);
  return out;
}

// An odd number of trailing backslashes continues the line (`\\` is an escaped backslash).
function endsWithContinuation(line: string): boolean {
  const match = /\\+$/.exec(line);
  return match !== null && match[0].length % 2 === 1;
}

function headerEnd(line: string): number {
  let quoted = false;
  for (let i = 1; i < line.length; i++) {
    const ch = line[i];
    if (ch === "\\" && quoted) i++;
    else if (ch === '"') quoted = !quoted;
    else if (ch === "]" && !quoted) return i;
  }
  return -1;
}

// The remote a section header names, or null for any other section.
function remoteSection(line: string): string | null {
  const close = headerEnd(line);
  if (close < 0) return null;
  const inner = line.slice(1, close).trim();
  const quoted = /^([A-Za-z0-9.-]+)\s+"((?:[^"\\]|\\.)*)"$/.exec(inner);
  if (quoted !== null) {
    if (quoted[1].toLowerCase() !== "remote") return null;
    return quoted[2].replace(/\\(.)/g, "$1");
  }
  const dot = inner.indexOf(".");
  if (dot < 0 || inner.slice(0, dot).toLowerCase() !== "remote") return null;
  return inner.slice(dot + 1).toLowerCase();
}

function collectUrl(line: string, into: string[]): void {
  const match = /^([A-Za-z][A-Za-z0-9-]*)\s*(=\s*(.*))?$/s.exec(line);
  if (match === null || match[1].toLowerCase() !== "url" || match[2] === undefined) return;
  into.push(configValue(match[3]));
}

// A config value: quotes removed, escapes applied, an unquoted comment and trailing blanks cut.
function configValue(raw: string): string {
  let out = "";
  let quoted = false;
  let pendingSpace = "";
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (!quoted && (ch === "#" || ch === ";")) break;
    if (!quoted && (ch === " " || ch === "\t")) {
      pendingSpace += ch;
      continue;
    }
    if (out !== "") out += pendingSpace;
    pendingSpace = "";
    if (ch === '"') {
      quoted = !quoted;
    } else if (ch === "\\" && i + 1 < raw.length) {
      const next = raw[++i];
      out += next === "n" ? "\n" : next === "t" ? "\t" : next === "b" ? "\b" : next;
    } else {
      out += ch;
    }
  }
  return out;
}
