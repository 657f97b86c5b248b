/**
 * The `kiro-learn` command (`deno task kiro-learn`); the commands live in `cli/`.
 *
 * @module
 */
import { runCli } from "./cli/mod.ts";

if (import.meta.main) Deno.exit(await runCli(Deno.args));
