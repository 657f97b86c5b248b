/**
 * Prepares a machine for the test suite: `deno task test` runs this first, so the README's test
 * command works on a fresh machine and not only under `.ci/run`.
 *
 * What the tests drive that is not part of the workspace:
 *
 * - Debian's headless Chromium (the viewer's end-to-end test drives it) and PostgreSQL 15 (the
 *   team-memory tests start throwaway servers of it). When one is missing and we may install
 *   packages (root, or password-less sudo), it is installed with `apt-get`, without its
 *   recommends, and only when a dry run shows that this upgrades no installed package;
 * - the real clients the end-to-end tests drive, npm packages ({@linkcode NPM_TOOLS}: Claude
 *   Code, the ACP agent `claude-code-acp`, the Codex CLI, Gemini CLI and Copilot CLI), each installed at its pinned
 *   version with `npm`
 *   into a folder of its own under `~/.cache/kiro-learn-test/npm/` when it is not there yet.
 *
 * Otherwise the run stops with the command that fixes it. A test that needs any of them never
 * skips: a missing dependency is a failure, said once, here, clearly.
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

/** Where the team-memory tests expect Debian's PostgreSQL 15 server programs. */
export const POSTGRES_INITDB = "/usr/lib/postgresql/15/bin/initdb";

/** The Debian package that provides {@linkcode POSTGRES_INITDB} (version 15 on bookworm). */
export const POSTGRES_PACKAGE = "postgresql";

/** An npm package the tests run, pinned to an exact version. */
export interface NpmTool {
  /** The package name. */
  name: string;
  /** The exact version to install (pinned: these clients change weekly). */
  version: string;
  /** The executable it provides (in `node_modules/.bin`). */
  bin: string;
  /** What it is for, in the progress line. */
  purpose: string;
}

/** The real Claude Code client (the end-to-end test of our hooks runs it). */
export const CLAUDE_CODE: NpmTool = {
  name: "@anthropic-ai/claude-code",
  version: "2.1.332",
  bin: "claude",
  purpose: "the end-to-end test of our hooks (about 400 MB, once)",
};

/** `claude-code-acp`: Claude Code behind the Agent Client Protocol (the real extraction agent). */
export const CLAUDE_CODE_ACP: NpmTool = {
  name: "@zed-industries/claude-code-acp",
  version: "0.16.2",
  bin: "claude-code-acp",
  purpose: "the real extraction agent's tests",
};

/**
 * The real OpenAI Codex CLI (its end-to-end test). Its native binary comes with npm, as the
 * optional dependency `@openai/codex-linux-x64` (on this platform): nothing downloads at run time.
 */
export const CODEX_CLI: NpmTool = {
  name: "@openai/codex",
  version: "0.171.0",
  bin: "codex",
  purpose: "the end-to-end test of the Codex CLI hooks (about 420 MB, once)",
};

/** The real Gemini CLI client (the end-to-end test of its hooks runs it). */
export const GEMINI_CLI: NpmTool = {
  name: "@google/gemini-cli",
  version: "0.61.0",
  bin: "gemini",
  purpose: "the end-to-end test of the Gemini CLI hooks (about 100 MB, once)",
};

/**
 * The real GitHub Copilot CLI (its end-to-end test). Its native program comes with npm, as the
 * optional dependency `@github/copilot-linux-x64` (on this platform), and unpacks the rest of
 * itself from that program on its first run: nothing downloads at run time.
 */
export const COPILOT_CLI: NpmTool = {
  name: "@github/copilot",
  version: "1.0.102",
  bin: "copilot",
  purpose: "the end-to-end test of the Copilot CLI hooks (about 200 MB, once)",
};

/** The npm tools prepare installs; one entry per tool. */
export const NPM_TOOLS: readonly NpmTool[] = [
  CLAUDE_CODE,
  CLAUDE_CODE_ACP,
  CODEX_CLI,
  GEMINI_CLI,
  COPILOT_CLI,
];

/** The pinned Codex CLI version (for messages and the docs' agent table). */
export const CODEX_VERSION: string = CODEX_CLI.version;

/** The pinned Claude Code version (for messages and benchmark records). */
export const CLAUDE_CODE_VERSION: string = CLAUDE_CODE.version;

/**
 * The folder a pinned npm tool is installed in: its own, under
 * `~/.cache/kiro-learn-test/npm/` (outside the repository, shared by every checkout).
 */
export function npmToolDir(tool: NpmTool, options: { home?: string } = {}): string {
  const home = options.home ?? Deno.env.get("HOME") ?? "";
  if (home === "") {
    throw new Error("HOME is not set: the tests' npm tools live under ~/.cache; set HOME");
  }
  return `${home}/.cache/kiro-learn-test/npm/${tool.name.replace("/", "+")}@${tool.version}`;
}

/** The path of a pinned npm tool's executable. */
export function npmToolBin(tool: NpmTool, options: { home?: string } = {}): string {
  return `${npmToolDir(tool, options)}/node_modules/.bin/${tool.bin}`;
}

/** The `claude` executable of the pinned Claude Code. */
export function claudeCodeBinary(options: { home?: string } = {}): string {
  return npmToolBin(CLAUDE_CODE, options);
}

/** The `codex` executable of the pinned Codex CLI. */
export function codexBinary(options: { home?: string } = {}): string {
  return npmToolBin(CODEX_CLI, options);
}

/** What the machine offers for installing a package. */
export interface MachineFacts {
  /** Chromium is already at {@linkcode CHROMIUM_PATH}. */
  hasChromium: boolean;
  /** PostgreSQL 15 is already at {@linkcode POSTGRES_INITDB}. */
  hasPostgres: boolean;
  /** The {@linkcode NPM_TOOLS} whose executable is not installed yet. */
  missingTools: readonly NpmTool[];
  /** `npm` is on the PATH. */
  hasNpm: boolean;
  /** The home folder the tools go under (see {@linkcode npmToolDir}). */
  home: string;
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

/**
 * `apt-get install` with only what the packages depend on: their recommends (for Chromium, about
 * a hundred packages: udev, avahi, printer tools, perl modules) pull newer versions of
 * installed packages (systemd, udev, perl) that a test run must not upgrade. `--no-upgrade`
 * also leaves a named package alone when it is installed already.
 */
export const APT_INSTALL: readonly string[] = [
  "install",
  "--no-install-recommends",
  "--no-upgrade",
];

/** The flag of {@linkcode APT_INSTALL}'s dry run, whose output {@linkcode aptUpgrades} reads. */
export const SIMULATE = "--simulate";

/**
 * The installed packages an `apt-get install --simulate` run would upgrade, with the version
 * they have and the one they would get: its `Inst name [installed] (candidate ...)` lines (a
 * package that is new has no bracketed version).
 */
export function aptUpgrades(simulation: string): { name: string; from: string; to: string }[] {
  return [...simulation.matchAll(/^Inst (\S+) \[([^\]]+)\] \((\S+)/gm)]
    .map(([, name, from, to]) => ({ name, from, to }));
}

/** What to say when installing `pkgs` would upgrade installed packages. */
export function upgradeRefusal(
  pkgs: readonly string[],
  upgrades: readonly { name: string; from: string; to: string }[],
): string {
  const listed = upgrades.slice(0, 8).map((u) => `${u.name} ${u.from} -> ${u.to}`).join(", ");
  const more = upgrades.length > 8 ? ` and ${upgrades.length - 8} more` : "";
  return `installing ${pkgs.join(" and ")} would also upgrade ${upgrades.length} installed ` +
    `package(s) (${listed}${more}); the test command installs only what it needs and upgrades ` +
    `nothing: run \`sudo apt-get install --no-install-recommends ${pkgs.join(" ")}\` yourself ` +
    "if those upgrades are fine, then run the tests again";
}

function aptPart(facts: MachineFacts): Part {
  const missing = [
    ...facts.hasChromium ? [] : [{
      what: `headless Chromium is missing (${CHROMIUM_PATH})`,
      pkg: CHROMIUM_PACKAGE,
      purpose: "the viewer's end-to-end test",
    }],
    ...facts.hasPostgres ? [] : [{
      what: `PostgreSQL 15 is missing (${POSTGRES_INITDB})`,
      pkg: POSTGRES_PACKAGE,
      purpose: "the team-memory tests, which start their own throwaway server",
    }],
  ];
  if (missing.length === 0) return null;
  const what = missing.map((m) => m.what).join(" and ");
  const pkgs = missing.map((m) => m.pkg);
  const manual = `sudo apt-get install -y --no-install-recommends ${pkgs.join(" ")}`;
  if (!facts.hasAptGet) {
    return {
      blocked: `${what} and this machine has no apt-get: install ${pkgs.join(" and ")} so ` +
        `that ${missing.map((m) => m.what.replace(/.*\((.*)\)$/, "$1")).join(" and ")} ` +
        "exist, then run the tests again",
    };
  }
  const prefix = facts.isRoot ? [] : facts.hasPasswordlessSudo ? ["sudo", "-n"] : null;
  if (prefix === null) {
    return {
      blocked: `${what} and installing it needs root: run \`${manual}\`, then run the tests ` +
        "again",
    };
  }
  // The lock timeout waits out an unattended upgrade instead of failing on a busy dpkg.
  const apt = [...prefix, "apt-get", "-o", "DPkg::Lock::Timeout=600"];
  return {
    commands: [
      [...apt, "update", "-qq"],
      // First a dry run: main() reads what it would change and stops if that upgrades anything.
      [...apt, ...APT_INSTALL, SIMULATE, ...pkgs],
      [...apt, ...APT_INSTALL, "-y", "-qq", ...pkgs],
    ],
    note: `${what}; installing Debian's ${pkgs.join(" and ")} for ` +
      `${missing.map((m) => m.purpose).join(" and ")} (about a minute, once)`,
  };
}

function npmToolPart(tool: NpmTool, facts: MachineFacts): Part {
  const spec = `${tool.name}@${tool.version}`;
  const dir = npmToolDir(tool, { home: facts.home });
  if (!facts.hasNpm) {
    return {
      blocked: `${spec} is missing (${dir}) and npm is not on the PATH: install Node.js and npm ` +
        `(\`sudo apt-get install -y npm\`), or run \`npm install --prefix ${dir} ${spec}\` ` +
        "elsewhere and copy the folder, then run the tests again",
    };
  }
  // npm fills a folder of its own, moved in place when complete: an interrupted install, or two
  // checkouts preparing at once, never leave a half-installed tool where the tests look.
  const staging = `${dir}.partial-${facts.stagingSuffix}`;
  return {
    commands: [
      ["npm", "install", "--prefix", staging, "--no-audit", "--no-fund", "--loglevel=error", spec],
      ["mv", "-T", staging, dir],
    ],
    note: `${spec} is missing; installing it with npm into ${dir} for ${tool.purpose}`,
  };
}

/**
 * Decides how to get Chromium, PostgreSQL and the pinned npm tools onto the machine from what
 * it offers.
 */
export function preparePlan(facts: MachineFacts): PreparePlan {
  const parts = [aptPart(facts), ...facts.missingTools.map((t) => npmToolPart(t, facts))]
    .filter((p) => p !== null);
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
  const home = Deno.env.get("HOME") ?? "";
  return {
    hasChromium: fileExists(CHROMIUM_PATH),
    hasPostgres: fileExists(POSTGRES_INITDB),
    missingTools: NPM_TOOLS.filter((tool) => !fileExists(npmToolBin(tool, { home }))),
    hasNpm: await succeeds("npm", ["--version"]),
    home,
    stagingSuffix: String(Deno.pid),
    hasAptGet: fileExists("/usr/bin/apt-get"),
    isRoot,
    hasPasswordlessSudo: !isRoot && await succeeds("sudo", ["-n", "true"]),
  };
}

async function main(): Promise<number> {
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
    if (args.includes(SIMULATE)) {
      const dry = await new Deno.Command(command, { args, stdin: "null", stderr: "inherit" })
        .output();
      const upgrades = aptUpgrades(new TextDecoder().decode(dry.stdout));
      if (dry.success && upgrades.length === 0) continue;
      const pkgs = args.slice(args.indexOf(SIMULATE) + 1);
      console.error(
        `[prepare] ${
          dry.success
            ? upgradeRefusal(pkgs, upgrades)
            : `\`${[command, ...args].join(" ")}\` failed (exit ${dry.code}): fix the error ` +
              "above, or install the missing dependency yourself, then run the tests again"
        }`,
      );
      return dry.success ? 1 : dry.code;
    }
    const { code } = await new Deno.Command(command, { args, stdin: "null" }).spawn().status;
    if (code !== 0) {
      // Another checkout preparing at the same time may have moved its copy in first.
      if (command === "mv" && fileExists(`${args.at(-1)}/node_modules/.bin`)) continue;
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
  if (!facts.hasPostgres && !fileExists(POSTGRES_INITDB)) {
    console.error(
      `[prepare] apt-get installed ${POSTGRES_PACKAGE} but ${POSTGRES_INITDB} is absent: this ` +
        "Debian release may ship another major version; install postgresql-15",
    );
    return 1;
  }
  for (const tool of facts.missingTools) {
    const bin = npmToolBin(tool, { home: facts.home });
    if (fileExists(bin)) continue;
    console.error(
      `[prepare] npm installed ${tool.name} but ${bin} is absent: a native binary may come ` +
        "from an optional dependency; check that npm does not skip optional dependencies " +
        "(omit=optional in .npmrc)",
    );
    return 1;
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main());
