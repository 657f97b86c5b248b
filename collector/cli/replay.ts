/**
 * `kiro-learn replay`: feed a recorded session (NDJSON hook payloads) through the real shims.
 *
 * The collector may not import the shims, so this runs the shims' replay entry as a process.
 *
 * @module
 */
import { DENO_ENV } from "@kiro-learn/core/launch";
import { type Command, stringOption, UsageError, userPath } from "./_command.ts";

const REPLAY_ENTRY = new URL("../../shims/replay.ts", import.meta.url).pathname;

/** The `replay` command. */
export const replayCommand: Command = {
  name: "replay",
  usage: "kiro-learn replay <file.ndjson> [--cwd DIR]",
  summary: "feed a recorded session (NDJSON hook payloads) through the real shims",
  options: { cwd: { type: "string" } },
  run: async (args) => {
    if (args.positionals.length !== 1) throw new UsageError("replay needs exactly one file");
    const file = userPath(args.positionals[0]);
    try {
      await Deno.stat(file);
    } catch {
      throw new UsageError(`no such file: ${file}`);
    }
    // A fresh project by default, so a demo never lands in the memory of a real one.
    const cwdOption = stringOption(args, "cwd");
    let cwd = cwdOption === undefined ? undefined : userPath(cwdOption);
    if (cwd === undefined) {
      cwd = await Deno.makeTempDir({ prefix: "kiro-learn-replay-" });
      await Deno.mkdir(`${cwd}/.git`);
      console.log(`replaying into a new project at ${cwd}`);
    }
    const { code } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", REPLAY_ENTRY, file, `--cwd=${cwd}`],
      env: DENO_ENV,
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    return code;
  },
};
