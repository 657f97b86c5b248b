/**
 * The extraction service: wires the watcher, the global LLM semaphore, the extractor choice and
 * the cost governor to the collector.
 *
 * @module
 */
import type { MemoryRecord } from "@kiro-learn/core/schemas";
import type { Settings } from "@kiro-learn/core/settings";
import type { ExtractionRun, RecordWithEmbedding, Storage } from "@kiro-learn/core/storage";
import { prepareAgentWorkdir, runAcpPrompt } from "../llm/mod.ts";
import type { Logger } from "../runtime/mod.ts";
import { commandAvailable } from "../permissions/mod.ts";
import { llmBudget } from "../llm/mod.ts";
import { compactQueue } from "./_compaction.ts";
import type { PromptReply, PromptRunner } from "../llm/mod.ts";
import { type ChunkCommitter, runExtraction } from "./run.ts";
import { Semaphore } from "../llm/mod.ts";
import { ExtractionWatcher, type ProjectWatchState, type QueuedEventInfo } from "./_watcher.ts";

/** Runs ACP sessions with the real client (the agent gets this process's whole environment). */
export const acpRunner: PromptRunner = (command, prompt, options) =>
  acpRunnerWith({})(command, prompt, options);

/**
 * Runs ACP sessions with the real client; the agent inherits only the `inheritEnv` variables,
 * and runs in `workdir` (see {@linkcode prepareAgentWorkdir}; default: this process's cwd).
 */
export function acpRunnerWith(
  config: { inheritEnv?: readonly string[]; workdir?: string },
): PromptRunner {
  return (command, prompt, options) => runWithAcp(command, prompt, { ...options, ...config });
}

async function runWithAcp(
  command: string[],
  prompt: string,
  options: {
    timeoutMs: number;
    signal?: AbortSignal;
    inheritEnv?: readonly string[];
    workdir?: string;
  },
): Promise<PromptReply> {
  const workdir = options.workdir === undefined ? undefined : prepareAgentWorkdir(options.workdir);
  const result = await runAcpPrompt(command, prompt, {
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    inheritEnv: options.inheritEnv,
    cwd: workdir?.cwd,
    env: workdir?.env,
  });
  return {
    text: result.text,
    sentBytes: result.wire_bytes_sent,
    receivedBytes: result.wire_bytes_received,
    contextTokens: result.context_tokens,
  };
}

/** What status and the viewer show about extraction. */
export interface ExtractionStatus {
  /** Configured strategy and the one in use. */
  strategy: { configured: string; effective: "acp" | "heuristic"; agent_found: boolean };
  /** LLM sessions running now. */
  sessions_in_use: number;
  /** Today's LLM spend against the cap. */
  llm_today: {
    chars_sent: number;
    chars_received: number;
    cap: number;
    over_cap: boolean;
    /** A run today fell back to the heuristic extractor because of the cap. */
    budget_limited: boolean;
  };
  /** Per-project watcher state. */
  projects: ProjectWatchState[];
}

/** The running service. */
export interface ExtractionService {
  /** Call after each stored event, with its kind and surface (an open turn waits for its end). */
  notify(projectId: string, bytes: number, info?: QueuedEventInfo): void;
  /** Runs a project's extraction now and waits for it. */
  flush(projectId: string): Promise<void>;
  /**
   * A project's rows (its queue among them) moved from one project id to another: the old id
   * is no longer watched, the new one is armed with what is queued under it now.
   */
  projectMoved(fromProjectId: string, toProjectId: string): Promise<void>;
  /** Status for `/v1/stats`. */
  status(): Promise<ExtractionStatus>;
  /** Stops timers, ends running agent sessions (their whole process groups) and drains runs. */
  close(): Promise<void>;
}

/** Starts the service and re-arms every project that has queued rows. */
export async function startExtraction(
  settings: Settings,
  options: {
    storage: Storage;
    logger: Logger;
    runner?: PromptRunner;
    embed?: (records: MemoryRecord[]) => Promise<RecordWithEmbedding[]>;
    commitChunk?: ChunkCommitter;
    onCommitted?: (records: MemoryRecord[]) => void;
    onDeleted?: (recordIds: string[]) => void;
    onRun?: (run: ExtractionRun) => void;
  },
): Promise<ExtractionService> {
  const x = settings.extraction;
  const semaphore = new Semaphore(x.concurrency);
  // Shutdown aborts every session in flight (extraction, judge, compaction), so close() ends the
  // agents and their children instead of waiting out their timeouts.
  const shutdown = new AbortController();
  // Every agent (compressor, judge, compactor) gets only the allowlisted environment, and runs
  // in the data dir's agent folder: never in a project (the collector's own cwd may be one).
  const baseRunner = options.runner ??
    acpRunnerWith({ inheritEnv: x.agentEnv, workdir: settings.paths.agentWorkdir });
  const runner: PromptRunner = (command, prompt, runOptions) =>
    baseRunner(command, prompt, {
      ...runOptions,
      signal: runOptions.signal
        ? AbortSignal.any([runOptions.signal, shutdown.signal])
        : shutdown.signal,
    });
  const agentFound = commandAvailable(x.agentCommand[0]);
  const effective = (): "acp" | "heuristic" => {
    if (x.strategy === "heuristic") return "heuristic";
    if (x.strategy === "acp") return "acp";
    return agentFound ? "acp" : "heuristic";
  };
  let budgetLimitedDay = "";
  const onRun = (run: ExtractionRun) => {
    if ((run.details as { budget_limited?: boolean } | undefined)?.budget_limited) {
      budgetLimitedDay = run.started_at.slice(0, 10);
    }
    options.onRun?.(run);
  };
  const watcher = new ExtractionWatcher({
    idleMs: x.idleMs,
    sizeThresholdBytes: x.sizeThresholdBytes,
    breakerThreshold: x.breakerThreshold,
    breakerCooldownMs: x.breakerCooldownMs,
    compactionThresholdBytes: settings.compaction.enabled ? settings.compaction.thresholdBytes : 0,
    queuedBytes: async (projectId) =>
      (await options.storage.queueDepths()).find((d) => d.project_id === projectId)?.bytes ?? 0,
    run: (projectId) =>
      runExtraction(projectId, {
        storage: options.storage,
        strategy: effective,
        agentCommand: x.agentCommand,
        runner,
        semaphore,
        promptCapBytes: x.promptCapBytes,
        timeoutMs: x.timeoutMs,
        maxAttempts: x.maxAttempts,
        dailyBudgetChars: x.dailyBudgetChars,
        logger: options.logger,
        embed: options.embed,
        commitChunk: options.commitChunk,
        onCommitted: options.onCommitted,
        onDeleted: options.onDeleted,
        onRun,
      }),
    // Compaction exists to bound a queue the LLM path cannot keep up with; with the heuristic
    // extractor the queue drains on every run, and a digest would only lose detail.
    compact: (projectId) =>
      effective() !== "acp" ? Promise.resolve() : compactQueue(projectId, {
        storage: options.storage,
        runner,
        semaphore,
        useAgent: effective() === "acp",
        command: settings.compaction.agentCommand,
        timeoutMs: settings.compaction.timeoutMs,
        maxAttempts: settings.compaction.maxAttempts,
        promptCapBytes: x.promptCapBytes,
        budget: llmBudget(options.storage, {
          project_id: projectId,
          purpose: "compact",
          capChars: x.dailyBudgetChars,
        }),
        logger: options.logger,
      }).then(() => {}, (error) =>
        options.logger.warn("compaction failed", { project_id: projectId, error: String(error) })),
    onBreaker: (projectId, state) =>
      options.logger.warn(`extraction breaker ${state}`, { project_id: projectId }),
  });
  for (const depth of await options.storage.queueDepths()) {
    watcher.arm(depth.project_id, depth.bytes);
  }
  return {
    notify: (projectId, bytes, info) => watcher.notify(projectId, bytes, info),
    flush: (projectId) => watcher.flush(projectId),
    async projectMoved(fromProjectId, toProjectId) {
      watcher.retire(fromProjectId);
      const depth = (await options.storage.queueDepths()).find((d) => d.project_id === toProjectId);
      watcher.arm(toProjectId, depth?.bytes ?? 0);
    },
    async status() {
      const day = new Date().toISOString().slice(0, 10);
      const usage = await options.storage.llmUsage({ day });
      return {
        strategy: { configured: x.strategy, effective: effective(), agent_found: agentFound },
        sessions_in_use: semaphore.inUse,
        llm_today: {
          chars_sent: usage.chars_sent,
          chars_received: usage.chars_received,
          cap: x.dailyBudgetChars,
          over_cap: usage.chars_sent + usage.chars_received >= x.dailyBudgetChars,
          budget_limited: budgetLimitedDay === day,
        },
        projects: watcher.states(),
      };
    },
    close: () => {
      shutdown.abort(new Error("the collector is shutting down; the batch stays queued"));
      return watcher.close();
    },
  };
}
