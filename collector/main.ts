/**
 * The `kiro-learn` command (`deno task kiro-learn`); the commands live in `cli/`.
 *
 * @module
 */
import { guardConsoleOutput, runCli } from "./cli/mod.ts";

if (import.meta.main) {
  // Commands print stored text (titles, summaries, paths): no control character of it may reach
  // the terminal raw.
  guardConsoleOutput();
  Deno.exit(await runCli(Deno.args));
}
