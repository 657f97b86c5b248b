/**
 * A process of the user's, stopped (SIGSTOP, as a suspended job is): the victim of an attack
 * that would make kiro-learn signal a pid it was not proven to own. A SIGCONT resumes it, which
 * {@linkcode processState} shows.
 *
 * @module
 */

/** The state letter of `/proc/<pid>/stat` (`T` while stopped, `S` sleeping), "" once gone. */
export function processState(pid: number): string {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // The state follows the command name, which is in parentheses and may hold anything.
    return stat.slice(stat.lastIndexOf(")") + 2)[0];
  } catch {
    return "";
  }
}

/** A stopped `sleep 60`; disposing of it kills and reaps it. */
export async function startStoppedProcess(): Promise<Deno.ChildProcess & AsyncDisposable> {
  const child = new Deno.Command("sleep", { args: ["60"], stdin: "null" }).spawn();
  child.kill("SIGSTOP");
  const deadline = Date.now() + 10_000;
  while (processState(child.pid) !== "T") {
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      await child.status;
      throw new Error("sleep did not stop within 10 s");
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return Object.assign(child, {
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
      await child.status;
    },
  });
}
