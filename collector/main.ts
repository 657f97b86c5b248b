/**
 * The `kiro-learn` command.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { loadSettings, SettingsError } from "@kiro-learn/core/settings";
import { VERSION } from "@kiro-learn/core/version";
import { CollectorDownError } from "./cli/client.ts";
import { forget, search, status } from "./cli/commands.ts";
import { runDoctor, runInstall, runUninstall } from "./cli/install.ts";
import { serve, start, stop } from "./cli/lifecycle.ts";
import { addModel, ModelError } from "./daemon/embedding/models.ts";
import { InstallError } from "./cli/installer/mod.ts";
import { openViewer } from "./cli/open.ts";

interface Command {
  usage: string;
  summary: string;
  options?: Record<string, { type: "string" | "boolean"; short?: string }>;
  run(args: { positionals: string[]; values: Record<string, unknown> }): Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  serve: {
    usage: "kiro-learn serve",
    summary: "run the collector in the foreground (what `deno task serve` does)",
    run: () => serve(loadSettings()),
  },
  start: {
    usage: "kiro-learn start",
    summary: "start the collector in the background and wait until it is healthy",
    run: async () => {
      await start(loadSettings());
      return 0;
    },
  },
  stop: {
    usage: "kiro-learn stop",
    summary: "stop the collector (SIGTERM, then SIGKILL after 5 s)",
    run: async () => {
      await stop(loadSettings());
      return 0;
    },
  },
  status: {
    usage: "kiro-learn status [--json]",
    summary: "is it running? pid, port, data dir, counts, queue, spool",
    options: { json: { type: "boolean" } },
    run: async ({ values }) => (await status(loadSettings(), { json: !!values.json })) ? 0 : 3,
  },
  search: {
    usage: "kiro-learn search <query> [--limit N] [--namespace NS] [--json]",
    summary: "search this project's memory and print ranked records",
    options: {
      limit: { type: "string" },
      namespace: { type: "string" },
      json: { type: "boolean" },
    },
    run: ({ positionals, values }) => {
      if (positionals.length === 0) throw new UsageError("search needs a query");
      const limit = values.limit === undefined ? undefined : Number(values.limit);
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 100)) {
        throw new UsageError("--limit must be an integer from 1 to 100");
      }
      return search(loadSettings(), positionals.join(" "), {
        limit,
        namespace: values.namespace as string | undefined,
        json: !!values.json,
      });
    },
  },
  install: {
    usage:
      "kiro-learn install [--dry-run] [--kiro-format v2|v3] [--scope user|project] [--kiro-ide-legacy]",
    summary: "register the hooks and the MCP server for Kiro CLI, Kiro IDE and Claude Code",
    options: {
      "dry-run": { type: "boolean" },
      "kiro-format": { type: "string" },
      scope: { type: "string" },
      "kiro-ide-legacy": { type: "boolean" },
    },
    run: ({ values }) => {
      const format = values["kiro-format"] as string | undefined;
      if (format !== undefined && !["v2", "v3", "auto"].includes(format)) {
        throw new UsageError("--kiro-format must be v2, v3 or auto");
      }
      const scope = values.scope as string | undefined;
      if (scope !== undefined && !["user", "project"].includes(scope)) {
        throw new UsageError("--scope must be user or project");
      }
      return runInstall(loadSettings(), {
        dryRun: !!values["dry-run"],
        kiroFormat: format as "v2" | "v3" | "auto" | undefined,
        scope: scope as "user" | "project" | undefined,
        kiroIdeLegacy: !!values["kiro-ide-legacy"],
      });
    },
  },
  uninstall: {
    usage: "kiro-learn uninstall [--keep-data] [--dry-run]",
    summary: "remove exactly what install added (and the data dir, unless --keep-data)",
    options: { "keep-data": { type: "boolean" }, "dry-run": { type: "boolean" } },
    run: ({ values }) =>
      runUninstall(loadSettings(), {
        keepData: !!values["keep-data"],
        dryRun: !!values["dry-run"],
      }),
  },
  doctor: {
    usage: "kiro-learn doctor",
    summary: "check the data dir, settings, token, collector, hooks, agent command and spool",
    run: () => runDoctor(loadSettings()),
  },
  replay: {
    usage: "kiro-learn replay <file.ndjson> [--cwd DIR]",
    summary: "feed a recorded session (NDJSON hook payloads) through the real shims",
    options: { cwd: { type: "string" } },
    run: async ({ positionals, values }) => {
      if (positionals.length !== 1) throw new UsageError("replay needs exactly one file");
      const file = positionals[0];
      try {
        await Deno.stat(file);
      } catch {
        throw new UsageError(`no such file: ${file}`);
      }
      // A fresh project by default, so a demo never lands in the memory of a real one.
      let cwd = values.cwd as string | undefined;
      if (cwd === undefined) {
        cwd = await Deno.makeTempDir({ prefix: "kiro-learn-replay-" });
        await Deno.mkdir(`${cwd}/.git`);
        console.log(`replaying into a new project at ${cwd}`);
      }
      const { code } = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", REPLAY_ENTRY, file, `--cwd=${cwd}`],
        stdout: "inherit",
        stderr: "inherit",
      }).output();
      return code;
    },
  },
  models: {
    usage: "kiro-learn models add <dir> [--name NAME]",
    summary: "install an ONNX sentence-transformer (model.onnx + tokenizer.json) for embeddings",
    options: { name: { type: "string" } },
    run: async ({ positionals, values }) => {
      if (positionals[0] !== "add" || positionals.length !== 2) {
        throw new UsageError("models needs `add <dir>`");
      }
      const settings = loadSettings();
      try {
        const added = await addModel(positionals[1], {
          dataDir: settings.dataDir,
          name: values.name as string | undefined,
        });
        console.log(
          `installed ${added.model_id} (${added.dim} dimensions) in ${added.dir}\n` +
            `set "embedding": {"backend": "onnx"} in ${settings.paths.settings} and restart ` +
            "the collector; records are re-embedded in the background",
        );
        return 0;
      } catch (error) {
        if (error instanceof ModelError) {
          console.error(`kiro-learn models add: ${error.message}`);
          return 1;
        }
        throw error;
      }
    },
  },
  open: {
    usage: "kiro-learn open",
    summary: "open the web viewer (prints a one-time link, opens it in a browser when it can)",
    run: () => openViewer(loadSettings()),
  },
  forget: {
    usage: "kiro-learn forget <record_id>",
    summary: "delete a memory record and everything derived from it",
    run: ({ positionals }) => {
      if (positionals.length !== 1) throw new UsageError("forget needs exactly one record id");
      return forget(loadSettings(), positionals[0]);
    },
  },
};

class UsageError extends Error {}

const REPLAY_ENTRY = new URL("../shims/replay.ts", import.meta.url).pathname;

function helpText(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  return [
    `kiro-learn ${VERSION}: durable project memory for AI coding agents`,
    "",
    "usage: kiro-learn <command> [options]   (kiro-learn <command> --help for details)",
    "",
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
  ].join("\n");
}

/** Runs the CLI with `argv`; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    console.log(helpText());
    return 0;
  }
  if (name === "--version" || name === "-V") {
    console.log(`kiro-learn ${VERSION}`);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`kiro-learn: unknown command "${name}"\n\n${helpText()}`);
    return 2;
  }
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...command.options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
    });
    if (values.help) {
      console.log(`usage: ${command.usage}\n\n${command.summary}`);
      return 0;
    }
    return await command.run({ values, positionals });
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE")) {
      console.error(`kiro-learn ${name}: ${(error as Error).message}\nusage: ${command.usage}`);
      return 2;
    }
    if (
      error instanceof SettingsError || error instanceof CollectorDownError ||
      error instanceof InstallError
    ) {
      console.error(`kiro-learn: ${error.message}`);
      return 1;
    }
    console.error(`kiro-learn ${name}: ${error instanceof Error ? error.message : error}`);
    return 1;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
