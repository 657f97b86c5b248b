/**
 * Installed ONNX models: `kiro-learn models add <dir>` (validate, then copy into
 * `<dataDir>/models/<name>/`) and finding the one the `onnx` backend uses.
 *
 * A model folder holds `model.onnx` and `tokenizer.json` (plus, when the source has them,
 * `tokenizer_config.json` and `sentence_bert_config.json`, which refine lower-casing and the
 * token cap) and a `manifest.json` written here with the model's hash and dimension. The model
 * id stored with every embedding is `onnx:<name>@<first 12 hex of sha256(model.onnx)>`, so
 * replacing the weights under the same name still re-embeds everything through the backfill.
 *
 * @module
 */
import { basename, join, resolve } from "node:path";
import { createOnnxEmbedder } from "./onnx.ts";
import { loadTokenizer } from "./_onnx_tokenizer.ts";
import { norm } from "@kiro-learn/core/search";

/** Files copied when present, besides the two required ones. */
const OPTIONAL_FILES = ["tokenizer_config.json", "sentence_bert_config.json"];

/** Name of the file in `models/` that names the model the onnx backend uses. */
export const ACTIVE_FILE = "active";

/** What `manifest.json` records about an installed model. */
export interface ModelManifest {
  /** Folder name under `models/`. */
  name: string;
  /** Hex SHA-256 of `model.onnx`. */
  sha256: string;
  /** Output size. */
  dim: number;
  /** When it was added (ISO). */
  added_at: string;
  /** Folder it was copied from. */
  source: string;
}

/** An installed model, ready to hand to the onnx backend. */
export interface InstalledModel {
  /** Folder name. */
  name: string;
  /** Absolute folder path. */
  dir: string;
  /** Model id stored with embeddings. */
  model_id: string;
  /** Output size, when the manifest records it. */
  dim: number | null;
}

/** A model folder that cannot be used, with a message that says how to fix it. */
export class ModelError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "ModelError";
  }
}

/** The model id for `name` and the hex SHA-256 of its `model.onnx`. */
export function onnxModelId(name: string, sha256: string): string {
  return `onnx:${name}@${sha256.slice(0, 12)}`;
}

async function sha256File(path: string): Promise<string> {
  const bytes = await Deno.readFile(path);
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** A folder name that is safe on every OS and in a permission flag (no commas). */
function validName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name);
}

/** Finds `model.onnx` at the top of `dir`, or in `onnx/` (the Hugging Face repo layout). */
async function findModelFile(dir: string): Promise<string | null> {
  for (const candidate of [join(dir, "model.onnx"), join(dir, "onnx", "model.onnx")]) {
    if (await isFile(candidate)) return candidate;
  }
  return null;
}

/** Options for {@linkcode addModel}. */
export interface AddModelOptions {
  /** The data dir (the model goes to `<dataDir>/models/<name>/`). */
  dataDir: string;
  /** Folder name (default: the source folder's name). */
  name?: string;
  /** Make it the model the onnx backend uses (default true). */
  activate?: boolean;
  /** Longest wait for the trial load (default 120 s). */
  loadTimeoutMs?: number;
}

/**
 * Validates a sentence-transformer folder and copies it into `<dataDir>/models/<name>/`:
 * `model.onnx` (at the top or in `onnx/`) and `tokenizer.json` must exist, the tokenizer must
 * parse, and the model must load in the onnx child process and return finite vectors of one
 * consistent dimension. An existing model of the same name is replaced. Throws
 * {@linkcode ModelError} with the reason; nothing is copied unless every check passes.
 */
export async function addModel(
  srcDir: string,
  options: AddModelOptions,
): Promise<InstalledModel & { manifest: ModelManifest }> {
  const src = resolve(srcDir);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(src);
  } catch {
    throw new ModelError(`${src} does not exist`);
  }
  if (!info.isDirectory) throw new ModelError(`${src} is not a folder`);
  const name = options.name ?? basename(src);
  if (!validName(name)) {
    throw new ModelError(
      `"${name}" cannot be a model name: use letters, digits, ".", "_" or "-" (at most 64)`,
    );
  }
  const modelFile = await findModelFile(src);
  if (!modelFile) {
    throw new ModelError(
      `${src} has no model.onnx (looked in ${src} and ${join(src, "onnx")}): export the ` +
        `sentence-transformer to ONNX first`,
    );
  }
  if (!await isFile(join(src, "tokenizer.json"))) {
    throw new ModelError(`${src} has no tokenizer.json (the model's Hugging Face tokenizer)`);
  }

  // Stage a flat copy first: the trial load then sees exactly what will be installed.
  const modelsDir = join(options.dataDir, "models");
  await Deno.mkdir(modelsDir, { recursive: true, mode: 0o700 });
  const staging = await Deno.makeTempDir({ dir: modelsDir, prefix: `.adding-${name}-` });
  try {
    await Deno.copyFile(modelFile, join(staging, "model.onnx"));
    await Deno.copyFile(join(src, "tokenizer.json"), join(staging, "tokenizer.json"));
    for (const file of OPTIONAL_FILES) {
      if (await isFile(join(src, file))) await Deno.copyFile(join(src, file), join(staging, file));
    }
    try {
      loadTokenizer(staging);
    } catch (error) {
      throw new ModelError(`tokenizer.json does not parse: ${(error as Error).message}`);
    }
    const dim = await trialEmbed(staging, options.loadTimeoutMs ?? 120_000);
    const manifest: ModelManifest = {
      name,
      sha256: await sha256File(join(staging, "model.onnx")),
      dim,
      added_at: new Date().toISOString(),
      source: src,
    };
    await Deno.writeTextFile(
      join(staging, "manifest.json"),
      JSON.stringify(manifest, null, 2) + "\n",
    );
    const target = join(modelsDir, name);
    await Deno.remove(target, { recursive: true }).catch((e) => {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    });
    await Deno.rename(staging, target);
    if (options.activate ?? true) {
      await Deno.writeTextFile(join(modelsDir, ACTIVE_FILE), `${name}\n`, { mode: 0o600 });
    }
    return { name, dir: target, model_id: onnxModelId(name, manifest.sha256), dim, manifest };
  } finally {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
  }
}

async function trialEmbed(dir: string, loadTimeoutMs: number): Promise<number> {
  let embedder;
  try {
    embedder = await createOnnxEmbedder({ modelDir: dir, modelId: "trial", loadTimeoutMs });
  } catch (error) {
    throw new ModelError((error as Error).message);
  }
  try {
    const texts = ["kiro-learn", "The date parser rejected February 29 in leap years."];
    const vectors = await embedder.embed(texts);
    for (const v of vectors) {
      if (v.length !== embedder.dim || v.length === 0) {
        throw new ModelError(
          `the model returned vectors of different sizes (${vectors.map((x) => x.length)})`,
        );
      }
      if (Math.abs(norm(v) - 1) > 1e-3) {
        throw new ModelError("the model returned a zero or non-finite vector for a probe text");
      }
    }
    return embedder.dim;
  } catch (error) {
    if (error instanceof ModelError) throw error;
    throw new ModelError(`the model failed on a probe text: ${(error as Error).message}`);
  } finally {
    await embedder.close();
  }
}

/**
 * The model the onnx backend uses: the one named in `models/active`, else the only installed
 * one. Throws {@linkcode ModelError} saying what to do when there is none or the choice is
 * ambiguous.
 */
export async function installedModel(dataDir: string): Promise<InstalledModel> {
  const modelsDir = join(dataDir, "models");
  let name: string | null = null;
  try {
    name = (await Deno.readTextFile(join(modelsDir, ACTIVE_FILE))).trim() || null;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (name === null) {
    const names = await listModelNames(modelsDir);
    if (names.length === 0) {
      throw new ModelError(
        `no ONNX model is installed in ${modelsDir}: run \`kiro-learn models add <dir>\` ` +
          `(see docs/retrieval.md), or set embedding.backend to "use-lite"`,
      );
    }
    if (names.length > 1) {
      throw new ModelError(
        `several ONNX models are installed (${names.join(", ")}): run ` +
          `\`kiro-learn models add <dir>\` for the one to use`,
      );
    }
    name = names[0];
  }
  const dir = join(modelsDir, name);
  if (!await isFile(join(dir, "model.onnx")) || !await isFile(join(dir, "tokenizer.json"))) {
    throw new ModelError(
      `${dir} lacks model.onnx or tokenizer.json: run \`kiro-learn models add <dir>\` again`,
    );
  }
  let manifest: Partial<ModelManifest> = {};
  try {
    manifest = JSON.parse(await Deno.readTextFile(join(dir, "manifest.json")));
  } catch {
    // Copied by hand: hash it here instead.
  }
  const sha256 = typeof manifest.sha256 === "string" && /^[0-9a-f]{64}$/.test(manifest.sha256)
    ? manifest.sha256
    : await sha256File(join(dir, "model.onnx"));
  return {
    name,
    dir,
    model_id: onnxModelId(name, sha256),
    dim: typeof manifest.dim === "number" ? manifest.dim : null,
  };
}

/** Names of the model folders in `modelsDir` (those holding a `model.onnx`), sorted. */
export async function listModelNames(modelsDir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(modelsDir)) {
      if (!entry.isDirectory || entry.name.startsWith(".")) continue;
      if (await isFile(join(modelsDir, entry.name, "model.onnx"))) names.push(entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}
