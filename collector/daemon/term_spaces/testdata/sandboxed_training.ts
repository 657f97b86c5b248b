// Trains a term space the way the daemon does (a Worker that may read only its code) and
// reports the result, plus whether that Worker could read anything else.
import { decodeTermSpace, recordSpaceDoc } from "@kiro-learn/core/search";
import { termSpaceWorkerPermissions, workerTrainer } from "../service.ts";
import { projectRecords } from "./corpus.ts";

async function* pages() {
  yield projectRecords("/ns/", 300).map(recordSpaceDoc);
}
const { data, terms } = await workerTrainer({ sandbox: true })(pages());
const permissions = termSpaceWorkerPermissions();
console.log(JSON.stringify({
  terms,
  dims: decodeTermSpace(data)?.dims,
  net: permissions.net,
  write: permissions.write,
  env: permissions.env,
  run: permissions.run,
}));
