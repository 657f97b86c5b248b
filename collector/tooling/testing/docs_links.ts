/**
 * Checks the repository's Markdown links: every relative link in the README and `docs/*.md` must
 * name a file that exists (and, with `#anchor`, a heading of that file, by GitHub's slugs), and
 * every docs page must be linked from the README, so a page cannot be orphaned by a later edit.
 *
 * @module
 */
import { dirname, join, resolve } from "@kiro-learn/core/path";

/** One link as written: its target and the line it is on (1-based). */
export interface MarkdownLink {
  /** The target, as written between the parentheses (title dropped). */
  target: string;
  /** 1-based line number. */
  line: number;
}

// Fenced blocks hold examples (shell, JSON, mermaid), never links or headings.
function proseLines(text: string): [string, number][] {
  const out: [string, number][] = [];
  let fence: string | null = null;
  text.split("\n").forEach((line, i) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === null) fence = marker[0];
      else if (marker[0] === fence) fence = null;
      return;
    }
    if (fence === null) out.push([line, i + 1]);
  });
  return out;
}

/** The inline links (`[text](target)`) of a Markdown text, outside code blocks and code spans. */
export function markdownLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const [line, number] of proseLines(text)) {
    const prose = line.replace(/`[^`]*`/g, "");
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      links.push({ target: match[1], line: number });
    }
  }
  return links;
}

/**
 * GitHub's anchor for a heading: its text lower-cased, markup and punctuation dropped, spaces
 * made hyphens.
 */
export function githubSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .trim()
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown text's headings; a repeated heading gets `-1`, `-2`, … as on GitHub. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [line] of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = githubSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

// Names in messages are the repository's own paths.
function relative(root: string, path: string): string {
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}

function readText(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.IsADirectory) {
      return null;
    }
    throw error;
  }
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * Every problem with the links of `root`'s README.md and docs/*.md, one line each (file, line,
 * what is wrong); empty when all links hold and every docs page is linked from the README.
 */
export function checkDocLinks(repoRoot: string): string[] {
  const root = resolve(repoRoot);
  const readme = join(root, "README.md");
  const docsDir = join(root, "docs");
  const pages = exists(docsDir)
    ? [...Deno.readDirSync(docsDir)]
      .filter((e) => e.isFile && e.name.endsWith(".md"))
      .map((e) => join(docsDir, e.name))
      .sort()
    : [];
  const problems: string[] = [];
  const linkedFromReadme = new Set<string>();
  for (const file of [readme, ...pages]) {
    const text = readText(file);
    const name = relative(root, file);
    if (text === null) {
      problems.push(`${name}: missing`);
      continue;
    }
    for (const { target, line } of markdownLinks(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto: …
      const hash = target.indexOf("#");
      const pathPart = hash < 0 ? target : target.slice(0, hash);
      const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
      const linked = pathPart === "" ? file : resolve(dirname(file), decodeURIComponent(pathPart));
      const where = `${name}:${line}: ${target}`;
      if (!exists(linked)) {
        problems.push(`${where}: ${relative(root, linked)} does not exist`);
        continue;
      }
      if (file === readme) linkedFromReadme.add(linked);
      if (anchor === null || anchor === "") continue;
      const linkedText = linked.endsWith(".md") ? readText(linked) : null;
      if (linkedText === null) {
        problems.push(`${where}: an anchor into a file that is not Markdown`);
      } else if (!headingAnchors(linkedText).has(anchor)) {
        problems.push(`${where}: no heading with the anchor #${anchor}`);
      }
    }
  }
  for (const page of pages) {
    if (!linkedFromReadme.has(page)) {
      problems.push(`README.md: does not link ${relative(root, page)}`);
    }
  }
  return problems;
}
