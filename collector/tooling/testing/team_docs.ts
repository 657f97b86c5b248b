/**
 * Test helper: the docs pages' runnable steps. The blocks a user runs are marked on the page
 * (`<!-- <journey>: <name> -->` right above a fenced block: `team-journey` on the team page,
 * `agents-journey` on the install page, `memory-journey` on the projects page); the journey tests
 * read them from the page itself, so a page and what its test runs cannot drift apart.
 *
 * @module
 */
import { REPO_ROOT } from "@kiro-learn/core/launch";

/** The team docs page, whose marked blocks the team journey test runs. */
export const TEAM_DOCS_PAGE: string = `${REPO_ROOT}/docs/team.md`;

/** The install docs page, whose marked blocks the agents' journey test runs. */
export const INSTALL_DOCS_PAGE: string = `${REPO_ROOT}/docs/install.md`;

/** The projects docs page, whose marked blocks the memory journey test runs. */
export const PROJECTS_DOCS_PAGE: string = `${REPO_ROOT}/docs/projects.md`;

/** The marker of the team page's blocks. */
export const TEAM_JOURNEY_MARKER = "team-journey";

/** The marker of the install page's blocks. */
export const AGENTS_JOURNEY_MARKER = "agents-journey";

/** The marker of the projects page's blocks. */
export const MEMORY_JOURNEY_MARKER = "memory-journey";

/** A marked block of a docs page: its language and its text. */
export interface TeamDocBlock {
  /** The fence's language (`sql`, `sh`). */
  lang: string;
  /** The block's text, without the fences. */
  text: string;
}

/** Every block of `markdown` marked `<!-- marker: <name> -->`, by name; a name marked twice is an error. */
export function markedDocBlocks(markdown: string, marker: string): Map<string, TeamDocBlock> {
  if (!/^[a-z0-9-]+$/.test(marker)) throw new Error(`not a block marker: ${marker}`);
  const pattern = new RegExp(
    `<!-- ${marker}: ([a-z0-9-]+) -->\\s*\\n\`\`\`(\\w*)\\n([\\s\\S]*?)\\n\`\`\``,
    "g",
  );
  const blocks = new Map<string, TeamDocBlock>();
  for (const [, name, lang, text] of markdown.matchAll(pattern)) {
    if (blocks.has(name)) throw new Error(`the docs mark "${name}" twice`);
    blocks.set(name, { lang, text });
  }
  return blocks;
}

/**
 * The block of `page` marked `<!-- marker: name -->`, which must be in `lang`; throws when the
 * page lost it.
 */
export function markedDocBlock(
  page: string,
  name: string,
  options: { marker: string; lang: string },
): string {
  const block = markedDocBlocks(Deno.readTextFileSync(page), options.marker).get(name);
  if (block === undefined) {
    throw new Error(`${page} has no block marked <!-- ${options.marker}: ${name} -->`);
  }
  if (block.lang !== options.lang) {
    throw new Error(`${page}'s block "${name}" is ${block.lang}, not ${options.lang}`);
  }
  return block.text;
}

/** Every marked block of the team docs `markdown`, by marker name; a name marked twice is an error. */
export function teamDocBlocks(markdown: string): Map<string, TeamDocBlock> {
  return markedDocBlocks(markdown, TEAM_JOURNEY_MARKER);
}

/** The marked block `name` of the team docs page; throws when the page lost it. */
export function teamDocBlock(name: string, lang: string): string {
  return markedDocBlock(TEAM_DOCS_PAGE, name, { marker: TEAM_JOURNEY_MARKER, lang });
}

/** A `kiro-learn` command line of the docs, as a test runs it. */
export interface DocCommand {
  /** The arguments after `kiro-learn`. */
  args: string[];
  /** The variable piped in on stdin (`printf '%s' "$PASSWORD" | …`), if any. */
  stdinVariable: string | null;
}

/**
 * Reads a docs command line: `[printf '%s' "$VAR" | ]kiro-learn <args>` (a trailing `# …` comment
 * is not part of it). Throws on anything else: the page must show what a user types.
 */
export function docCommand(line: string): DocCommand {
  const bare = line.replace(/\s+#.*$/, "").trim();
  const match = /^(?:printf '%s' "\$(\w+)" \| )?kiro-learn (.+)$/.exec(bare);
  if (match === null) throw new Error(`not a kiro-learn command line: ${line}`);
  return { args: match[2].split(/\s+/), stdinVariable: match[1] ?? null };
}

/**
 * The docs' example URL (`postgres://<role>@<host>:<port>/<database>`) pointed at a test server:
 * the same role (or `roles[role]` when the test's is named otherwise) and database, the test's
 * host and port.
 */
export function testServerUrl(
  docUrl: string,
  server: { port: number; host?: string; roles?: Record<string, string> },
): string {
  const url = new URL(docUrl);
  if (url.protocol !== "postgres:") throw new Error(`not a postgres:// URL: ${docUrl}`);
  const role = decodeURIComponent(url.username);
  url.username = encodeURIComponent(server.roles?.[role] ?? role);
  url.hostname = server.host ?? "127.0.0.1";
  url.port = String(server.port);
  return url.toString();
}
