/**
 * Test helper: the real OpenAI Codex CLI (the version `prepare.ts` pins and installs), run offline
 * (`codex exec`) against a scripted Responses API model (`scripted_responses_model.ts`): a custom
 * model provider given on the command line (`-c`), whose `base_url` is the loopback model and
 * whose key is a dummy value in an environment variable; plugins off (they look up outside
 * hosts); stdin from /dev/null. Run in the sandbox of `claude_client.ts` (its `codex` method), so
 * one HOME serves both clients with kiro-learn installed by its own CLI.
 *
 * @module
 */
import { CODEX_VERSION, codexBinary } from "./prepare.ts";

/** The Codex CLI version these helpers run (pinned in prepare.ts). */
export { CODEX_VERSION };

/** The hang guard of one `codex exec` run: far above its few seconds. */
export const CODEX_RUN_LIMIT_MS = 120_000;

/** The provider id and key variable the runs name (the key's value is a dummy). */
const PROVIDER = "scripted";
const KEY_VARIABLE = "KIRO_LEARN_SCRIPTED_MODEL_KEY";

/**
 * The pinned `codex` executable; throws, saying how to install it, when it is missing (a test
 * that needs the client fails without it, it never skips).
 */
export function requireCodex(): string {
  const binary = codexBinary();
  try {
    if (Deno.statSync(binary).isFile) return binary;
  } catch {
    // Reported below.
  }
  throw new Error(
    `Codex CLI ${CODEX_VERSION} is not installed (no ${binary}): run \`deno task test\`, whose ` +
      "first step (collector/tooling/testing/prepare.ts) installs it with npm, or run that script " +
      "alone, then run this test again",
  );
}

/** What one `codex exec` run did. */
export interface CodexRun {
  /** Exit code. */
  code: number;
  /** Standard output (the last answer). */
  stdout: string;
  /** Standard error (progress, hooks, warnings). */
  stderr: string;
}

/** The arguments of one offline `codex exec` run against the model at `modelUrl`. */
export function codexExecArgs(prompt: string, modelUrl: string): string[] {
  const provider = `{name="Scripted",base_url=${
    JSON.stringify(modelUrl)
  },wire_api="responses",env_key="${KEY_VARIABLE}"}`;
  return [
    "exec",
    // The sandbox's projects are folders with a .git marker, not repositories git knows.
    "--skip-git-repo-check",
    "--disable",
    "plugins",
    "-c",
    `model="${PROVIDER}"`,
    "-c",
    `model_provider="${PROVIDER}"`,
    "-c",
    `model_providers.${PROVIDER}=${provider}`,
    prompt,
  ];
}

/** Runs the real client once; killed and reported after {@linkcode CODEX_RUN_LIMIT_MS}. */
export async function runCodex(
  binary: string,
  prompt: string,
  options: { cwd: string; env: Record<string, string>; modelUrl: string },
): Promise<CodexRun> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), CODEX_RUN_LIMIT_MS);
  try {
    const output = await new Deno.Command(binary, {
      args: codexExecArgs(prompt, options.modelUrl),
      cwd: options.cwd,
      env: { ...options.env, [KEY_VARIABLE]: "sk-scripted-model" },
      clearEnv: true,
      stdin: "null",
      signal: abort.signal,
    }).output();
    const decoder = new TextDecoder();
    if (abort.signal.aborted) {
      throw new Error(
        `codex exec ${JSON.stringify(prompt)} hung: killed after ${CODEX_RUN_LIMIT_MS} ms ` +
          `(in ${options.cwd}); its stderr: ${decoder.decode(output.stderr)}`,
      );
    }
    return {
      code: output.code,
      stdout: decoder.decode(output.stdout),
      stderr: decoder.decode(output.stderr),
    };
  } finally {
    clearTimeout(timer);
  }
}
