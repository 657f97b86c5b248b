/**
 * Reconciliation: intra-chunk clustering, the neighbour lookup, the merge judge over ACP with
 * its per-project breaker, and the one-transaction chunk commit.
 *
 * @module
 */
export { type Cluster, clusterCandidates } from "./cluster.ts";
export {
  askJudge,
  JUDGE_MAX_ATTEMPTS,
  type JudgeOptions,
  type JudgeOutcome,
  judgePrompt,
} from "./judge.ts";
export {
  createReconciler,
  type NeighborSearch,
  type Reconciler,
  type ReconcilerOptions,
  resolveMerge,
} from "./reconcile.ts";
