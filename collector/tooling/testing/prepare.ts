/**
 * Prepares a machine for the test suite: `deno task test` runs this first, so the README's test
 * command works on a fresh machine and not only under `.ci/run`.
 *
 * Two things the tests drive are not part of the workspace:
 *
 * - Debian's headless Chromium (the viewer's end-to-end test drives it). When it is missing and
 *   we may install packages (root, or password-less sudo), it is installed with `apt-get`;
 * - the real Claude Code client, pinned at {@linkcode CLAUDE_CODE_VERSION} (the end-to-end test
 *   of our hooks runs it), installed with `npm` into {@linkcode claudeCodeDir} (a cache outside
 *   the repository, shared by every checkout) when that version is not there yet.
 *
 * Otherwise the run stops with the command that fixes it. A test that needs either never skips:
 * a missing dependency is a failure, said once, here, clearly.
 *
 * The real clients the end-to-end tests drive are npm packages ({@linkcode NPM_TOOLS}), each
 * installed at its pinned version with `npm` into a folder of its own under
 * `$HOME/.cache/kiro-learn-test/npm/` (see {@linkcode npmToolBin}).
 *
 * ```sh
 * deno run --allow-run --allow-read --allow-env=HOME --allow-sys=uid collector/tooling/testing/prepare.ts
 * ```
 *
 * @module
 */

/** Where the end-to-end test expects Debian's Chromium. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/** The Debian package that provides {@linkcode CHROMIUM_PATH}. */
export const CHROMIUM_PACKAGE = "chromium";

/** The npm package of the Claude Code client the end-to-end test runs. */
export const CLAUDE_CODE_PACKAGE = "@anthropic-ai/claude-code";

/** The exact Claude Code version the end-to-end test runs (pinned: the client changes weekly). */
export const CLAUDE_CODE_VERSION = "2.1.332";

/** Where the pinned Claude Code is installed: `~/.cache/kiro-learn-test/claude-code@<version>`. */
export function claudeCodeDir(home: string = Deno.env.get("HOME") ?? ""): string {
  if (home === "") {
    throw new Error("HOME is not set: the Claude Code test client lives under ~/.cache; set HOME");
  }
  return `${home}/.cache/kiro-learn-test/claude-code@${CLAUDE_CODE_VERSION}`;
}

/** The `claude` executable inside an install folder made by {@linkcode preparePlan}. */
export function claudeCodeBinary(dir: string = claudeCodeDir()): string {
  return `${dir}/node_modules/.bin/claude`;
}

/** An npm package the tests run, pinned to an exact version. */
export interface NpmTool {
  /** The package name. */
  name: string;
  /** The exact version to install. */
  version: string;
  /** The executable it provides (in `node_modules/.bin`). */
  bin: string;
}

/** `claude-code-acp`: Claude Code behind the Agent Client Protocol (the real extraction agent). */
export const CLAUDE_CODE_ACP: NpmTool = {
  name: "@zed-industries/claude-code-acp",
  version: "0.16.2",
  bin: "claude-code-acp",
};

/** The npm tools prepare installs; one entry per tool. */
export const NPM_TOOLS: readonly NpmTool[] = [CLAUDE_CODE_ACP];

/** The folder a pinned npm tool is installed in (its own, so versions never mix). */
export function npmToolDir(tool: NpmTool, options: { home?: string } = {}): string {
  const home = options.home ?? Deno.env.get("HOME") ?? "/tmp";
  return `${home}/.cache/kiro-learn-test/npm/${tool.name.replace("/", "+")}@${tool.version}`;
}

/** The path of a pinned npm tool's executable. */
export function npmToolBin(tool: NpmTool, options: { home?: string } = {}): string {
  return `${npmToolDir(tool, options)}/node_modules/.bin/${tool.bin}`;
}

/** The command that installs `tool` at its pinned version into {@linkcode npmToolDir}. */
export function npmInstallCommand(tool: NpmTool, options: { home?: string } = {}): string[] {
  return [
    "npm",
    "install",
    "--prefix",
    npmToolDir(tool, options),
    "--no-audit",
    "--no-fund",
    "--save-exact",
    `${tool.name}@${tool.version}`,
  ];
}

/** What the machine offers for installing a package. */
export interface MachineFacts {
  /** Chromium is already at {@linkcode CHROMIUM_PATH}. */
  hasChromium: boolean;
  /** The pinned Claude Code is installed (its `claude` is in {@linkcode claudeCodeDir}). */
  hasClaudeCode: boolean;
  /** `npm` is on the PATH. */
  hasNpm: boolean;
  /** Where Claude Code goes ({@linkcode claudeCodeDir}). */
  claudeCodeDir: string;
  /** A process-unique suffix for the folder npm installs into before it is moved in place. */
  stagingSuffix: string;
  /** `apt-get` is on the machine. */
  hasAptGet: boolean;
  /** We run as root. */
  isRoot: boolean;
  /** `sudo -n true` succeeds (sudo without a password). */
  hasPasswordlessSudo: boolean;
}

/** What {@linkcode preparePlan} decided: nothing to do, commands to run, or why we cannot. */
export type PreparePlan =
  | { kind: "ready" }
  | { kind: "install"; commands: string[][]; notes: string[] }
  | { kind: "blocked"; message: string };

type Part = { commands: string[][]; note: string } | { blocked: string } | null;

function chromiumPart(facts: MachineFacts): Part {
  if (facts.hasChromium) return null;
  const manual = `sudo apt-get install -y ${CHROMIUM_PACKAGE}`;
  if (!facts.hasAptGet) {
    return {
      blocked: `headless Chromium is missing (${CHROMIUM_PATH}) and this machine has no apt-get: ` +
        `install Chromium so that ${CHROMIUM_PATH} exists, then run the tests again`,
    };
  }
  const prefix = facts.isRoot ? [] : facts.hasPasswordlessSudo ? ["sudo", "-n"] : null;
  if (prefix === null) {
    return {
      blocked: `headless Chromium is missing (${CHROMIUM_PATH}) and installing it needs root: ` +
        `run \`${manual}\`, then run the tests again`,
    };
  }
  // The lock timeout waits out an unattended upgrade instead of failing on a busy dpkg.
  const apt = [...prefix, "apt-get", "-o", "DPkg::Lock::Timeout=600"];
  return {
    commands: [[...apt, "update", "-qq"], [...apt, "install", "-y", "-qq", CHROMIUM_PACKAGE]],
    note: `headless Chromium is missing (${CHROMIUM_PATH}); installing Debian's ` +
      `${CHROMIUM_PACKAGE} package for the viewer's end-to-end test (about a minute, once)`,
  };
}

function claudeCodePart(facts: MachineFacts): Part {
  if (facts.hasClaudeCode) return null;
  const spec = `${CLAUDE_CODE_PACKAGE}@${CLAUDE_CODE_VERSION}`;
  if (!facts.hasNpm) {
    return {
      blocked: `Claude Code ${CLAUDE_CODE_VERSION} is missing (${facts.claudeCodeDir}) and npm ` +
        `is not on the PATH: install Node.js and npm (\`sudo apt-get install -y npm\`), or run ` +
        `\`npm install --prefix ${facts.claudeCodeDir} ${spec}\` elsewhere and copy the folder, ` +
        "then run the tests again",
    };
  }
  // npm fills a folder of its own, moved in place when complete: an interrupted install, or two
  // checkouts preparing at once, never leave a half-installed client where the test looks.
  const staging = `${facts.claudeCodeDir}.partial-${facts.stagingSuffix}`;
  return {
    commands: [
      ["npm", "install", "--prefix", staging, "--no-audit", "--no-fund", "--loglevel=error", spec],
      ["mv", "-T", staging, facts.claudeCodeDir],
    ],
    note: `Claude Code ${CLAUDE_CODE_VERSION} is missing; installing ${spec} with npm into ` +
      `${facts.claudeCodeDir} for the end-to-end test of our hooks (about 400 MB, once)`,
  };
}

/** Decides how to get Chromium and the pinned Claude Code onto the machine from what it offers. */
export function preparePlan(facts: MachineFacts): PreparePlan {
  const parts = [chromiumPart(facts), claudeCodePart(facts)].filter((p) => p !== null);
  const blocked = parts.flatMap((p) => "blocked" in p ? [p.blocked] : []);
  if (blocked.length > 0) return { kind: "blocked", message: blocked.join("; and ") };
  if (parts.length === 0) return { kind: "ready" };
  return {
    kind: "install",
    commands: parts.flatMap((p) => "commands" in p ? p.commands : []),
    notes: parts.flatMap((p) => "note" in p ? [p.note] : []),
  };
}

function fileExists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

async function succeeds(command: string, args: string[]): Promise<boolean> {
  try {
    const { success } = await new Deno.Command(command, {
      args,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    return success;
  } catch {
    return false;
  }
}

/** Reads the facts {@linkcode preparePlan} needs off this machine. */
export async function machineFacts(): Promise<MachineFacts> {
  const isRoot = Deno.uid() === 0;
  const dir = claudeCodeDir();
  return {
    hasChromium: fileExists(CHROMIUM_PATH),
    hasClaudeCode: fileExists(claudeCodeBinary(dir)),
    hasNpm: await succeeds("npm", ["--version"]),
    claudeCodeDir: dir,
    stagingSuffix: String(Deno.pid),
    hasAptGet: fileExists("/usr/bin/apt-get"),
    isRoot,
    hasPasswordlessSudo: !isRoot && await succeeds("sudo", ["-n", "true"]),
  };
}

/** Installs every missing {@linkcode NPM_TOOLS} entry; returns a non-zero code on failure. */
async function installNpmTools(): Promise<number> {
  for (const tool of NPM_TOOLS) {
    if (fileExists(npmToolBin(tool))) continue;
    const [command, ...args] = npmInstallCommand(tool);
    console.error(`[prepare] installing ${tool.name}@${tool.version} for the real-client tests`);
    let code: number;
    try {
      ({ code } = await new Deno.Command(command, { args, stdin: "null" }).spawn().status);
    } catch (error) {
      console.error(
        `[prepare] could not run npm (${error instanceof Error ? error.message : error}): ` +
          "install Node.js with npm, then run the tests again",
      );
      return 1;
    }
    if (code !== 0 || !fileExists(npmToolBin(tool))) {
      console.error(
        `[prepare] \`${[command, ...args].join(" ")}\` failed (exit ${code}): fix npm's error ` +
          "above, then run the tests again",
      );
      return code || 1;
    }
  }
  return 0;
}

async function main(): Promise<number> {
  const npmCode = await installNpmTools();
  if (npmCode !== 0) return npmCode;
  const facts = await machineFacts();
  const plan = preparePlan(facts);
  if (plan.kind === "ready") return 0;
  if (plan.kind === "blocked") {
    console.error(`[prepare] ${plan.message}`);
    return 1;
  }
  for (const note of plan.notes) console.error(`[prepare] ${note}`);
  for (const [command, ...args] of plan.commands) {
    const started = performance.now();
    const { code } = await new Deno.Command(command, { args, stdin: "null" }).spawn().status;
    if (code !== 0) {
      // Another checkout preparing at the same time may have moved its copy in first.
      if (command === "mv" && fileExists(claudeCodeBinary(facts.claudeCodeDir))) continue;
      console.error(
        `[prepare] \`${[command, ...args].join(" ")}\` failed (exit ${code}): fix the error ` +
          "above, or install the missing dependency yourself, then run the tests again",
      );
      return code;
    }
    const what = command === "mv" ? `moved into ${args.at(-1)}` : args.at(-1);
    console.error(
      `[prepare] ${what}: done in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
  }
  if (!facts.hasChromium && !fileExists(CHROMIUM_PATH)) {
    console.error(`[prepare] apt-get installed ${CHROMIUM_PACKAGE} but ${CHROMIUM_PATH} is absent`);
    return 1;
  }
  if (!fileExists(claudeCodeBinary(facts.claudeCodeDir))) {
    console.error(
      `[prepare] npm installed ${CLAUDE_CODE_PACKAGE} but ${
        claudeCodeBinary(facts.claudeCodeDir)
      } is absent: its native binary comes from an optional dependency; check that npm does ` +
        "not skip optional dependencies (omit=optional in .npmrc)",
    );
    return 1;
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main());
