// A grown use-lite Worker whose replacement cannot load: read of the model's folder is revoked
// once the first Worker has loaded, so the fresh one (which inherits this process's permissions)
// cannot read the model. Reports what the embedder did.
import { useLiteReadPaths } from "../../permissions/model_paths.ts";
import { createUseLiteEmbedder } from "../use_lite.ts";

const text = "the date parser rejects Feb 29";
const embedder = await createUseLiteEmbedder({
  sandbox: false,
  workers: 1,
  spare: false,
  recycleIdleMs: 200,
});
const [before] = await embedder.embed([text]);
await Deno.permissions.revoke({ name: "read", path: useLiteReadPaths()[1] });
const end = Date.now() + 30_000;
while (!embedder.recycles().failed && Date.now() < end) {
  await new Promise((r) => setTimeout(r, 50));
}
const failed = embedder.recycles();
const [after] = await embedder.embed([text]);
// Past another idle time: no second attempt.
await new Promise((r) => setTimeout(r, 1_000));
let cosine = 0;
for (let i = 0; i < after.length; i++) cosine += after[i] * before[i];
const report = {
  failed,
  served_after: cosine > 0.99999,
  recycles_later: embedder.recycles(),
  running: embedder.workersRunning(),
};
await embedder.close();
console.log(JSON.stringify(report));
