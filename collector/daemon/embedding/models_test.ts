import assert from "node:assert/strict";
import { addModel, installedModel, listModelNames, ModelError, onnxModelId } from "./models.ts";
import { writeTinyModel } from "../../tooling/testing/mod.ts";

async function withDirs(fn: (src: string, dataDir: string) => Promise<void>): Promise<void> {
  const src = await Deno.makeTempDir({ prefix: "tiny-minilm-" });
  const dataDir = await Deno.makeTempDir();
  try {
    await fn(src, dataDir);
  } finally {
    await Deno.remove(src, { recursive: true });
    await Deno.remove(dataDir, { recursive: true });
  }
}

Deno.test("addModel validates, copies into models/<name>/, records a manifest, activates", async () => {
  await withDirs(async (src, dataDir) => {
    await writeTinyModel(src, { dim: 8 });
    await Deno.writeTextFile(`${src}/tokenizer_config.json`, '{"do_lower_case": true}');
    await Deno.writeTextFile(`${src}/README.md`, "not copied");
    const added = await addModel(src, { dataDir, name: "tiny" });
    assert.equal(added.name, "tiny");
    assert.equal(added.dir, `${dataDir}/models/tiny`);
    assert.equal(added.dim, 8);
    assert.match(added.manifest.sha256, /^[0-9a-f]{64}$/);
    assert.equal(added.model_id, onnxModelId("tiny", added.manifest.sha256));
    const files = [...Deno.readDirSync(added.dir)].map((e) => e.name).sort();
    assert.deepEqual(files, [
      "manifest.json",
      "model.onnx",
      "tokenizer.json",
      "tokenizer_config.json",
    ]);
    assert.equal((await Deno.readTextFile(`${dataDir}/models/active`)).trim(), "tiny");
    assert.deepEqual(await installedModel(dataDir), {
      name: "tiny",
      dir: added.dir,
      model_id: added.model_id,
      dim: 8,
    });
    // No staging folder is left behind.
    assert.deepEqual(await listModelNames(`${dataDir}/models`), ["tiny"]);
    assert.deepEqual(
      [...Deno.readDirSync(`${dataDir}/models`)].map((e) => e.name).sort(),
      ["active", "tiny"],
    );
  });
});

Deno.test("addModel takes the Hugging Face layout (onnx/model.onnx) and names after the folder", async () => {
  await withDirs(async (src, dataDir) => {
    await writeTinyModel(src);
    await Deno.mkdir(`${src}/onnx`);
    await Deno.rename(`${src}/model.onnx`, `${src}/onnx/model.onnx`);
    const added = await addModel(src, { dataDir });
    assert.equal(added.name, src.split("/").at(-1));
    assert.ok((await Deno.stat(`${added.dir}/model.onnx`)).isFile);
  });
});

Deno.test("replacing a model under the same name changes its id (weights hash)", async () => {
  await withDirs(async (src, dataDir) => {
    await writeTinyModel(src, { seed: 1 });
    const first = await addModel(src, { dataDir, name: "m" });
    await writeTinyModel(src, { seed: 2 });
    const second = await addModel(src, { dataDir, name: "m" });
    assert.notEqual(first.model_id, second.model_id);
    assert.equal((await installedModel(dataDir)).model_id, second.model_id);
  });
});

Deno.test("addModel refuses bad folders with clear errors and copies nothing", async () => {
  await withDirs(async (src, dataDir) => {
    await assert.rejects(addModel(`${src}/nope`, { dataDir }), /does not exist/);
    await assert.rejects(addModel(src, { dataDir }), /has no model\.onnx/);
    await writeTinyModel(src);
    await assert.rejects(addModel(src, { dataDir, name: "../evil" }), /cannot be a model name/);
    await Deno.remove(`${src}/tokenizer.json`);
    await assert.rejects(addModel(src, { dataDir }), /has no tokenizer\.json/);
    await Deno.writeTextFile(`${src}/tokenizer.json`, "{broken");
    await assert.rejects(
      addModel(src, { dataDir }),
      (e) => e instanceof ModelError && /tokenizer\.json does not parse/.test(e.message),
    );
    await writeTinyModel(src);
    await Deno.writeTextFile(`${src}/model.onnx`, "garbage");
    await assert.rejects(addModel(src, { dataDir }), /model\.onnx cannot be loaded/);
    assert.deepEqual(await listModelNames(`${dataDir}/models`), []);
    assert.deepEqual([...Deno.readDirSync(`${dataDir}/models`)], []);
  });
});

Deno.test("installedModel: none, one, several, and a hand-copied folder without a manifest", async () => {
  await withDirs(async (_src, dataDir) => {
    await assert.rejects(installedModel(dataDir), /no ONNX model is installed/);
    await writeTinyModel(`${dataDir}/models/b`);
    const one = await installedModel(dataDir);
    assert.equal(one.name, "b");
    assert.equal(one.dim, null);
    assert.match(one.model_id, /^onnx:b@[0-9a-f]{12}$/);
    await writeTinyModel(`${dataDir}/models/a`);
    await assert.rejects(installedModel(dataDir), /several ONNX models are installed \(a, b\)/);
    await Deno.writeTextFile(`${dataDir}/models/active`, "a\n");
    assert.equal((await installedModel(dataDir)).name, "a");
    await Deno.remove(`${dataDir}/models/a/tokenizer.json`);
    await assert.rejects(installedModel(dataDir), /lacks model\.onnx or tokenizer\.json/);
  });
});
