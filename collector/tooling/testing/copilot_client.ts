/**
 * Test helper: the real GitHub Copilot CLI (the version `prepare.ts` pins and installs), run
 * offline in prompt mode (`copilot -p … --allow-all`) against a scripted model on loopback, in a
 * sandbox of its own (a temporary HOME, a kiro-learn data dir with a free collector port, project
 * folders). kiro-learn is installed and started there with its own CLI, as a user would.
 *
 * Offline: `COPILOT_OFFLINE=true` (no GitHub sign-in, telemetry, GitHub MCP server nor update
 * check) with a custom provider (`COPILOT_PROVIDER_BASE_URL`, which needs no GitHub account).
 * The provider type is `anthropic`, so the scripted Anthropic Messages model Claude Code's tests
 * use (`scripted_model.ts`) serves Copilot too. On its first run in a HOME the client unpacks
 * itself from its native program into `~/.cache/copilot` (a few seconds, nothing fetched).
 *
 * @module
 */
import { COPILOT_CLI, npmToolBin } from "./prepare.ts";
import { type AgentSandbox, agentSandbox, type ClientRun, runGuarded } from "./claude_client.ts";

/** The Copilot CLI version these helpers run (pinned in prepare.ts). */
export const COPILOT_CLI_VERSION: string = COPILOT_CLI.version;

/** The hang guard of one `copilot -p` run: far above its few seconds, it only turns a hang into a failure. */
export const COPILOT_RUN_LIMIT_MS = 120_000;

/** The model the runs name (one Copilot knows, so it configures tools as for that model). */
export const COPILOT_TEST_MODEL = "claude-sonnet-4.5";

/**
 * The pinned `copilot` executable; throws, saying how to install it, when it is missing (a test
 * that needs the client fails without it, it never skips).
 */
export function requireCopilotCli(): string {
  const binary = npmToolBin(COPILOT_CLI);
  try {
    if (Deno.statSync(binary).isFile) return binary;
  } catch {
    // Reported below.
  }
  throw new Error(
    `Copilot CLI ${COPILOT_CLI_VERSION} is not installed (no ${binary}): run \`deno task test\`, ` +
      "whose first step (collector/tooling/testing/prepare.ts) installs it with npm, or run that " +
      "script alone, then run this test again",
  );
}

/** What one `copilot -p` run did (its stdout is the answer, `--silent`). */
export type CopilotRun = ClientRun;

/** An {@linkcode AgentSandbox} that runs the real Copilot CLI. */
export interface CopilotSandbox extends AgentSandbox {
  /** Runs `copilot -p <prompt>` in `cwd` against the Anthropic-style model at `modelUrl`. */
  copilot(
    prompt: string,
    options: { cwd: string; modelUrl: string; apiKey: string },
  ): Promise<CopilotRun>;
}

/** Makes a sandbox for Copilot CLI. Nothing of kiro-learn is installed yet. */
export async function copilotSandbox(
  options: { actor?: string; settings?: Record<string, unknown> } = {},
): Promise<CopilotSandbox> {
  requireCopilotCli();
  const box = await agentSandbox({ ...options, prefix: "kiro-learn-copilot-" });
  return { ...box, ...copilotClient(box) };
}

/**
 * Adds Copilot CLI to a sandbox made for another client (so one HOME hosts several): the method
 * that runs it in `box`'s HOME (it needs no settings file of its own).
 */
export function copilotClient(box: Pick<AgentSandbox, "env">): Pick<CopilotSandbox, "copilot"> {
  const binary = requireCopilotCli();
  return { copilot: (prompt, run) => runCopilot(binary, prompt, { ...run, env: box.env }) };
}

/**
 * Runs the real client once: `copilot -p <prompt> --allow-all --silent` (every tool approved, no
 * question to the user, no update) against the model at `modelUrl`. Killed and reported after
 * {@linkcode COPILOT_RUN_LIMIT_MS} (a hang guard).
 */
export function runCopilot(
  binary: string,
  prompt: string,
  options: { cwd: string; env: Record<string, string>; modelUrl: string; apiKey: string },
): Promise<CopilotRun> {
  const args = [
    "-p",
    prompt,
    "--allow-all",
    "--silent",
    "--no-ask-user",
    "--no-auto-update",
    "--disable-client-telemetry",
  ];
  return runGuarded(binary, args, {
    cwd: options.cwd,
    env: {
      ...options.env,
      COPILOT_OFFLINE: "true",
      COPILOT_PROVIDER_TYPE: "anthropic",
      COPILOT_PROVIDER_BASE_URL: options.modelUrl,
      COPILOT_PROVIDER_API_KEY: options.apiKey,
      COPILOT_MODEL: COPILOT_TEST_MODEL,
    },
    limitMs: COPILOT_RUN_LIMIT_MS,
    what: `copilot -p ${JSON.stringify(prompt)}`,
  });
}
