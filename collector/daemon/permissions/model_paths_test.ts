import assert from "node:assert/strict";
import {
  ONNX_CHILD,
  onnxRuntimeBinDir,
  TEAM_SYNC_WORKER,
  TERM_SPACE_WORKER,
  USE_LITE_KERNELS,
  USE_LITE_WORKER,
  useLiteReadPaths,
  WORKSPACE_CONFIG,
} from "./model_paths.ts";

Deno.test("the paths the launcher grants exist and hold what the backends load", () => {
  const [core, model, kernels] = useLiteReadPaths();
  assert.match(core, /@energetic-ai\/core\/dist$/);
  assert.equal(kernels, USE_LITE_KERNELS);
  assert.match(model, /@energetic-ai\/model-embeddings-en\/dist$/);
  assert.ok(Deno.statSync(`${core}/tfjs-backend-wasm.wasm`).isFile);
  assert.ok(Deno.statSync(`${model}/model.json`).isFile);
  assert.ok(Deno.statSync(`${model}/vocab.json`).isFile);
  for (
    const file of [
      USE_LITE_WORKER,
      USE_LITE_KERNELS,
      ONNX_CHILD,
      WORKSPACE_CONFIG,
      TERM_SPACE_WORKER,
      TEAM_SYNC_WORKER,
    ]
  ) {
    assert.ok(Deno.statSync(file).isFile, file);
  }
  const native = [...Deno.readDirSync(onnxRuntimeBinDir())].map((e) => e.name);
  assert.ok(native.includes("onnxruntime_binding.node"), native.join(", "));
});
