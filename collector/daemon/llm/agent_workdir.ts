/**
 * The neutral folder the collector's LLM agents run in. An agent works in its session's `cwd`:
 * Claude Code (behind `claude-code-acp`) files the session's transcript under
 * `~/.claude/projects/<cwd>/`, sends the model the git status of the repository around it, and
 * reads its `.claude/` settings and `CLAUDE.md`. Run in the collector's own working directory
 * (a checkout under `deno task serve`, or whatever project a hook auto-started it from), every
 * extraction session, holding any project's observations, landed in that project's folder, where
 * `import claude-code` took it for the user's own. A folder of the data dir belongs to no project.
 *
 * @module
 */
import { dirname } from "node:path";
import type { SpendCarrier, WireSpend } from "./prompt_runner.ts";

/** What an agent session is started with: its working directory and environment additions. */
export interface AgentWorkdir {
  /** The folder (absolute, real path): the child's working directory and the session's `cwd`. */
  cwd: string;
  /**
   * `GIT_CEILING_DIRECTORIES` set to the data dir, so git run by the agent never looks above
   * the folder for a repository (a data dir inside a checkout must not lend it the checkout's).
   */
  env: Record<string, string>;
}

/** The agent workdir is unusable (not a folder, or a git repository); no agent was started. */
export class AgentWorkdirError extends Error implements SpendCarrier {
  /** Nothing crossed: the session never started. */
  spend: WireSpend = { sent: 0, received: 0 };
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "AgentWorkdirError";
  }
}

/**
 * Creates `dir` (0700) or tightens it to 0700, checks that it is a plain folder and no git
 * repository, and returns what a session needs. Called for every session: cheap next to a model
 * call, and a folder removed while the collector runs comes back.
 */
export function prepareAgentWorkdir(dir: string): AgentWorkdir {
  const notAFolder = () =>
    new AgentWorkdirError(
      `the LLM agents' working folder ${dir} is not a folder: remove it (kiro-learn creates it)`,
    );
  try {
    Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) throw notAFolder();
    throw error;
  }
  const info = Deno.lstatSync(dir);
  if (!info.isDirectory) throw notAFolder();
  if (Deno.build.os !== "windows" && info.mode !== null && (info.mode & 0o777) !== 0o700) {
    Deno.chmodSync(dir, 0o700);
  }
  try {
    Deno.lstatSync(`${dir}/.git`);
    throw new AgentWorkdirError(
      `the LLM agents' working folder ${dir} is a git repository: remove its .git ` +
        "(agents would send the model its status)",
    );
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  // Real paths: git compares the ceiling with the real path of the folder it starts in.
  const cwd = Deno.realPathSync(dir);
  return { cwd, env: { GIT_CEILING_DIRECTORIES: dirname(cwd) } };
}
