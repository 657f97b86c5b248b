/**
 * The collector member: the long-running daemon (`daemon/`) and the `kiro-learn` command line
 * (`cli/`). Benchmarks, quality evaluation and test helpers live apart in `tooling/`.
 *
 * @module
 */
export { type RunningCollector, startCollector, type StartOptions } from "./daemon/mod.ts";
export { COMMANDS, runCli } from "./cli/mod.ts";
