// Runs the use-lite embedder the way the daemon does (sandboxed Worker, narrow read) and
// reports what happened, plus what code inside such a Worker may do.
import { useLiteReadPaths } from "../../permissions/model_paths.ts";
import { createUseLiteEmbedder, useLiteWorkerPermissions } from "../use_lite.ts";

const embedder = await createUseLiteEmbedder({ sandbox: true });
const vectors = await embedder.embed(["leap year parsing", "the date parser rejects Feb 29"]);
await embedder.close();

const worker = new Worker(new URL("./worker_probe.ts", import.meta.url), {
  type: "module",
  deno: { permissions: useLiteWorkerPermissions() },
});
const probe = await new Promise((resolve) => {
  worker.onmessage = (e) => resolve(e.data);
  worker.postMessage(useLiteReadPaths());
});
worker.terminate();
console.log(JSON.stringify({ dim: vectors[0].length, count: vectors.length, probe }));
