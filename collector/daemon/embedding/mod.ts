/**
 * Local embeddings: the embedder backends (`use-lite`, `onnx`), the per-namespace vector index,
 * the continuous backfill, and the service that ties them together for the collector.
 *
 * @module
 */
export {
  composeEmbeddingInput,
  cutAtWord,
  type Embedder,
  type EmbedderState,
  type EmbedderStatus,
  EMBEDDING_INPUT_VERSION,
  type EmbeddingBackendName,
  embeddingModelId,
  embeddingText,
  EmbedTimeoutError,
  MAX_EMBEDDING_INPUT,
  queryEmbeddingInput,
  withInputVersion,
} from "./embedder.ts";
export {
  COLLECTOR_VECTOR_PRECISION,
  type SearchOptions,
  type VectorHit,
  VectorIndex,
  type VectorPrecision,
  type VectorSource,
} from "./vector_index.ts";
export {
  Backfill,
  type BackfillEmbedder,
  type BackfillOptions,
  type BackfillProgress,
  type BackfillState,
} from "./backfill.ts";
export {
  addModel,
  type AddModelOptions,
  type InstalledModel,
  installedModel,
  ModelError,
  type ModelManifest,
  onnxModelId,
} from "./models.ts";
export {
  createUseLiteEmbedder,
  USE_LITE_DIM,
  USE_LITE_MODEL_ID,
  useLiteInput,
  type UseLiteOptions,
} from "./use_lite.ts";
export { createOnnxEmbedder, type OnnxOptions } from "./onnx.ts";
export {
  createEmbeddingService,
  type EmbedderFactory,
  type EmbeddingService,
  type EmbeddingServiceOptions,
  type EmbeddingServiceStatus,
} from "./service.ts";
