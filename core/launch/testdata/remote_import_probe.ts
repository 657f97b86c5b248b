// Tries dynamic imports from Deno's default import hosts, from jsr and from npm, and prints the
// outcome of each as JSON: run with a process's exact flags to see what it may import.
const SPECIFIERS = [
  "https://deno.land/x/kiro_learn_probe/mod.ts",
  "https://esm.sh/kiro-learn-probe",
  "jsr:@kiro-learn/probe",
  "npm:kiro-learn-probe@1.0.0",
];

const outcome: Record<string, string> = {};
for (const specifier of SPECIFIERS) {
  try {
    await import(specifier);
    outcome[specifier] = "loaded";
  } catch (error) {
    outcome[specifier] = `refused: ${(error as Error).message.split("\n")[0]}`;
  }
}
console.log(JSON.stringify(outcome));
