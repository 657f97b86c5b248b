// Stays alive long enough for a background task of the Deno runtime (its update check, a second
// or two after start) to open its connection, then exits: run in place of an entry module, with
// that process's exact flags and environment.
await new Promise((resolve) => setTimeout(resolve, 4000));
console.log("lingered");
