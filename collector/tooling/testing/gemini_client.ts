/**
 * Test helper: the real Gemini CLI (the version `prepare.ts` pins and installs), run offline in
 * headless mode (`gemini -p … --yolo --skip-trust`) against a scripted Gemini API
 * (`scripted_gemini_model.ts`, named by `GOOGLE_GEMINI_BASE_URL`), in a sandbox of its own: a
 * temporary HOME whose `~/.gemini/settings.json` picks API-key auth and turns usage statistics
 * off (so nothing reaches outside), a kiro-learn data dir with a free collector port, and project
 * folders. kiro-learn is installed and started there with its own CLI, as a user would.
 *
 * @module
 */
import { GEMINI_CLI, npmToolBin } from "./prepare.ts";
import { type AgentSandbox, agentSandbox, runGuarded } from "./claude_client.ts";

/** The Gemini CLI version these helpers run (pinned in prepare.ts). */
export const GEMINI_CLI_VERSION: string = GEMINI_CLI.version;

/** The hang guard of one `gemini -p` run: far above its few seconds, it only turns a hang into a failure. */
export const GEMINI_RUN_LIMIT_MS = 120_000;

/** The model the runs name (a fixed one: `auto` would ask a router model first). */
export const GEMINI_TEST_MODEL = "gemini-2.5-flash";

/**
 * What a Gemini CLI user's settings.json holds before kiro-learn is installed: API-key auth (the
 * key comes from the environment), no usage statistics, a fixed model, and no next-speaker
 * check (a side request the scripted model need not answer).
 */
export const GEMINI_USER_SETTINGS = {
  security: { auth: { selectedType: "gemini-api-key" } },
  privacy: { usageStatisticsEnabled: false },
  model: { name: GEMINI_TEST_MODEL, skipNextSpeakerCheck: true },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
};

/**
 * The pinned `gemini` executable; throws, saying how to install it, when it is missing (a test
 * that needs the client fails without it, it never skips).
 */
export function requireGeminiCli(): string {
  const binary = npmToolBin(GEMINI_CLI);
  try {
    if (Deno.statSync(binary).isFile) return binary;
  } catch {
    // Reported below.
  }
  throw new Error(
    `Gemini CLI ${GEMINI_CLI_VERSION} is not installed (no ${binary}): run \`deno task test\`, ` +
      "whose first step (collector/tooling/testing/prepare.ts) installs it with npm, or run that " +
      "script alone, then run this test again",
  );
}

/** What one `gemini -p` run did. */
export interface GeminiRun {
  /** Exit code. */
  code: number;
  /** Standard output (the `--output-format json` result). */
  stdout: string;
  /** Standard error. */
  stderr: string;
  /** The `response` text of the JSON output, or null when there was none. */
  response: string | null;
}

/** An {@linkcode AgentSandbox} that runs the real Gemini CLI. */
export interface GeminiSandbox extends AgentSandbox {
  /** Runs `gemini -p <prompt>` in `cwd` against `modelUrl` with `apiKey`. */
  gemini(
    prompt: string,
    options: { cwd: string; modelUrl: string; apiKey: string },
  ): Promise<GeminiRun>;
}

/**
 * Makes a sandbox for Gemini CLI, its user settings written (see
 * {@linkcode GEMINI_USER_SETTINGS}). Nothing of kiro-learn is installed yet.
 */
export async function geminiSandbox(
  options: { actor?: string; settings?: Record<string, unknown> } = {},
): Promise<GeminiSandbox> {
  requireGeminiCli();
  const box = await agentSandbox({ ...options, prefix: "kiro-learn-gemini-" });
  return { ...box, ...(await geminiClient(box)) };
}

/**
 * Adds Gemini CLI to a sandbox made for another client (so one HOME hosts several): writes its
 * user settings (see {@linkcode GEMINI_USER_SETTINGS}) into `box`'s HOME and returns the method
 * that runs it there.
 */
export async function geminiClient(
  box: Pick<AgentSandbox, "home" | "env">,
): Promise<Pick<GeminiSandbox, "gemini">> {
  const binary = requireGeminiCli();
  await Deno.mkdir(`${box.home}/.gemini`, { recursive: true });
  await Deno.writeTextFile(
    `${box.home}/.gemini/settings.json`,
    JSON.stringify(GEMINI_USER_SETTINGS, null, 2) + "\n",
  );
  return { gemini: (prompt, run) => runGemini(binary, prompt, { ...run, env: box.env }) };
}

/**
 * Runs the real client once, headless: `gemini -p <prompt> --yolo --skip-trust --output-format
 * json` (every tool call approved; the project folder trusted for this run, which also lets
 * `settings.json` hooks run) against the model at `modelUrl`. Killed and reported after
 * {@linkcode GEMINI_RUN_LIMIT_MS} (a hang guard).
 */
export async function runGemini(
  binary: string,
  prompt: string,
  options: { cwd: string; env: Record<string, string>; modelUrl: string; apiKey: string },
): Promise<GeminiRun> {
  const run = await runGuarded(
    binary,
    ["-p", prompt, "--yolo", "--skip-trust", "--output-format", "json"],
    {
      cwd: options.cwd,
      env: {
        ...options.env,
        GOOGLE_GEMINI_BASE_URL: options.modelUrl,
        GEMINI_API_KEY: options.apiKey,
      },
      limitMs: GEMINI_RUN_LIMIT_MS,
      what: `gemini -p ${JSON.stringify(prompt)}`,
    },
  );
  let response: string | null = null;
  try {
    const parsed = JSON.parse(run.stdout);
    response = typeof parsed.response === "string" ? parsed.response : null;
  } catch {
    response = null;
  }
  return { ...run, response };
}
