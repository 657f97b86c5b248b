/**
 * Test helper: the team docs page's runnable steps. The blocks a team admin and a member run are
 * marked on the page (`<!-- team-journey: <name> -->` right above a fenced block); the journey
 * test reads them from the page itself, so the page and what the test runs cannot drift apart.
 *
 * @module
 */
import { REPO_ROOT } from "@kiro-learn/core/launch";

/** The team docs page, whose marked blocks the journey test runs. */
export const TEAM_DOCS_PAGE: string = `${REPO_ROOT}/docs/team.md`;

/** A marked block of the team docs: its language and its text. */
export interface TeamDocBlock {
  /** The fence's language (`sql`, `sh`). */
  lang: string;
  /** The block's text, without the fences. */
  text: string;
}

const MARKED_BLOCK = /<!-- team-journey: ([a-z0-9-]+) -->\s*\n```(\w*)\n([\s\S]*?)\n```/g;

/** Every marked block of `markdown`, by marker name; a name marked twice is an error. */
export function teamDocBlocks(markdown: string): Map<string, TeamDocBlock> {
  const blocks = new Map<string, TeamDocBlock>();
  for (const [, name, lang, text] of markdown.matchAll(MARKED_BLOCK)) {
    if (blocks.has(name)) throw new Error(`the team docs mark "${name}" twice`);
    blocks.set(name, { lang, text });
  }
  return blocks;
}

/** The marked block `name` of the team docs page; throws when the page lost it. */
export function teamDocBlock(name: string, lang: string): string {
  const path = TEAM_DOCS_PAGE;
  const block = teamDocBlocks(Deno.readTextFileSync(path)).get(name);
  if (block === undefined) {
    throw new Error(`${path} has no block marked <!-- team-journey: ${name} -->`);
  }
  if (block.lang !== lang) {
    throw new Error(`${path}'s block "${name}" is ${block.lang}, not ${lang}`);
  }
  return block.text;
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
