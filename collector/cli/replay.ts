/**
 * `kiro-learn replay`: feed a recorded session (NDJSON hook payloads) through the real shims.
 *
 * The collector may not import the shims, so this runs the shims' replay entry as a process.
 *
 * @module
 */
import { DENO_ENV } from "@kiro-learn/core/launch";
import { resolveProject } from "@kiro-learn/core/project";
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
    const cwdOption = stringOption(args, "cwd");
    if (cwdOption !== undefined) return await replayInto(file, userPath(cwdOption));
    // A fresh project by default, so a demo never lands in the memory of a real one; its folder
    // is only where the hooks fire, and goes once they have: the memory stays in the collector.
    const demo = await Deno.realPath(await Deno.makeTempDir({ prefix: "kiro-learn-replay-" }));
    try {
      await Deno.mkdir(`${demo}/.git`);
      const { namespace } = resolveProject(demo);
      console.log(`replaying into a new project at ${demo} (namespace ${namespace})`);
      const code = await replayInto(file, demo);
      console.log(
        `its memory, once extracted: kiro-learn search "<words>" --namespace ${namespace}, ` +
          "or the viewer (kiro-learn open)",
      );
      return code;
    } finally {
      await Deno.remove(demo, { recursive: true });
    }
  },
};

async function replayInto(file: string, cwd: string): Promise<number> {
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", REPLAY_ENTRY, file, `--cwd=${cwd}`],
    env: DENO_ENV,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  return code;
}
