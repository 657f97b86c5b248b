/**
 * Starting and stopping one collector: storage, pipeline, app and the HTTP listener.
 *
 * @module
 */
import { collectorBaseUrl } from "@kiro-learn/core/api/wire";
import { drainSpool, spoolFilling, type SpoolStatus, spoolStatus } from "@kiro-learn/core/spool";
import type { Event, MemoryRecord } from "@kiro-learn/core/schemas";
import { ensureDataDir, type Settings, writeSecureFile } from "@kiro-learn/core/settings";
import { openSqliteStorage, type Storage, writeTurns } from "@kiro-learn/core/storage";
import { readTeamPassword, startTeamSyncWorker, type TeamSyncWorker } from "./team/mod.ts";
import { createEmbeddingService, type EmbeddingService } from "./embedding/mod.ts";
import { createTermSpaceService, type TermSpaceService } from "./term_spaces/mod.ts";
import { type ExtractionService, startExtraction } from "./extraction/mod.ts";
import type { PromptRunner } from "./llm/mod.ts";
import { type EventStoredHook, IngestPipeline, type NamespaceMovedHook } from "./ingest/mod.ts";
import { projectIdFromNamespace } from "@kiro-learn/core/project";
import { createReconciler } from "./reconcile/mod.ts";
import { createAssembler } from "./retrieval/mod.ts";
import {
  createHybridSearcher,
  createSearcher,
  createVectorSearcher,
  DEFAULT_SEARCH_MODE,
} from "./retrieval/mod.ts";
import { createResumeAssembler, withSessionStart } from "./retrieval/mod.ts";
import { createLogger, type Logger } from "./runtime/mod.ts";
import { CircuitBreaker, EventBus } from "./runtime/mod.ts";
import { ensureToken } from "./runtime/mod.ts";
import { bindTcpGuard, createApp, startTcpGuard, type TcpGuard } from "./server/mod.ts";
import type { CollectorContext } from "./server/mod.ts";

/** A running collector. */
export interface RunningCollector {
  /** Base URL, e.g. `http://127.0.0.1:21100`. */
  url: string;
  /** Port actually bound. */
  port: number;
  /** The API token. */
  token: string;
  /** The database. */
  storage: Storage;
  /** The extraction service. */
  extraction: ExtractionService;
  /** Embedder, vector index and backfill. */
  embeddings: EmbeddingService;
  /** Each namespace's term space (the ranked search's `term_space` column). */
  termSpaces: TermSpaceService;
  /** Live-feed bus. */
  bus: EventBus;
  /** Team sync (in its supervised Worker), when `team.url` is set. */
  team: TeamSyncWorker | null;
  /**
   * The app itself, without the network (Hono's `app.request`): what in-process route tests call.
   * Requests still pass the Host, Origin and token checks.
   */
  request(input: string, init?: RequestInit): Promise<Response>;
  /** Stops accepting requests, drains in-flight ones, closes the database. */
  close(): Promise<void>;
}

/** Options for {@linkcode startCollector}. */
export interface StartOptions {
  /** Logger (default: JSON lines to stderr at the settings' level). */
  logger?: Logger;
  /** Write `collector.pid` (the daemon does; in-process tests do not). */
  writePidFile?: boolean;
  /** Extra hook on stored events. */
  onStored?: EventStoredHook;
  /** ACP session runner (tests may substitute; default is the real ACP client). */
  runner?: PromptRunner;
  /** How often the spool is drained after the start-up drain (default 30 s). */
  spoolDrainMs?: number;
  /**
   * Serve the app on `<data dir>/collector.sock` (the hooks' fast path) and write the header file
   * the hook launchers send; the TCP port is then held by the connection guard
   * (`server/tcp_guard.ts`), which relays to that socket (the daemon does; in-process tests may).
   */
  unixSocket?: boolean;
  /**
   * Run the team sync Worker with its own narrow permissions (needs `--unstable-worker-options`:
   * the daemon passes true). Default false: under `deno test -A` the Worker inherits the test's.
   */
  teamSandbox?: boolean;
  /**
   * Train term spaces in a Worker that can only read its code (needs `--unstable-worker-options`:
   * the daemon passes true). Default false: under `deno test -A` the Worker inherits the test's.
   */
  termSpaceSandbox?: boolean;
}

/** Opens everything and starts listening on the settings' loopback host and port. */
export async function startCollector(
  settings: Settings,
  options: StartOptions = {},
): Promise<RunningCollector> {
  const logger = options.logger ?? createLogger({ level: settings.log.level });
  ensureDataDir(settings.dataDir);
  for (const dir of [settings.paths.spool, settings.paths.logs, settings.paths.models]) {
    Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  const token = ensureToken(settings.paths.token);
  // The collector's writes announce themselves, so the team sync's pull gives way to them.
  const turns = writeTurns();
  const storage = openSqliteStorage(settings.paths.db, {
    home: Deno.env.get("HOME"),
    writeTurns: turns,
    // With a team, the sync Worker checkpoints the WAL (after each cycle, and as its pulls
    // commit): a checkpoint syncs the files, which on a busy disk held up the request thread's
    // commit that happened to cross the threshold while a pull filled the WAL.
    walAutoCheckpoint: settings.team.url === "" ? undefined : 0,
  });
  const bus = new EventBus();
  // Trained in the background once a namespace is big enough; searches use what is ready.
  const termSpaces = createTermSpaceService({
    storage,
    logger,
    sandbox: options.termSpaceSandbox ?? false,
  });
  const publishSaved = (r: MemoryRecord) => {
    termSpaces.recordsChanged(r.namespace);
    bus.publish({
      type: "record_saved",
      record_id: r.record_id,
      namespace: r.namespace,
      title: r.title,
    });
  };
  // Loads the model in the background: the port is bound without waiting for it.
  const embeddings = createEmbeddingService({
    backend: settings.embedding.backend,
    storage,
    logger,
    timeoutMs: settings.embedding.timeoutMs,
    vectorIdleMs: settings.embedding.vectorIdleMs,
    workerIdleRecycleMs: settings.embedding.workerIdleRecycleMs,
    dataDir: settings.dataDir,
  });
  // Hybrid retrieval; lexical-only (exactly the FTS path) whenever the embedder is not ready.
  // The query embedding gets half the budget so a slow model degrades to lexical results rather
  // than to an empty injection; the assembler's budget still wraps the whole search.
  const vectorSources = {
    getRecords: (ids: readonly string[]) => storage.getRecords(ids),
    embedQuery: (text: string, o: { timeoutMs: number }) => embeddings.embedQuery(text, o),
    searchVectors: (
      ns: string,
      vector: Float32Array,
      o: { k: number; minSimilarity: number; collapseAbove?: number },
    ) => embeddings.index.search(ns, vector, o),
  };
  const hybrid = createHybridSearcher({
    ...vectorSources,
    searchLexical: (ns, q, o) => storage.searchLexical(ns, q, o),
  }, {
    modelId: () => embeddings.index.model,
    onSearch: (trace) => {
      if (logger.debugEnabled) logger.debug("retrieval-hybrid", { ...trace });
    },
    embedTimeoutMs: Math.min(
      settings.embedding.timeoutMs,
      Math.floor(settings.retrieval.budgetMs / 2),
    ),
  });
  const reconciler = createReconciler({
    storage,
    enabled: settings.reconciliation.enabled,
    command: settings.reconciliation.agentCommand,
    judgeTimeoutMs: settings.reconciliation.judgeTimeoutMs,
    clusterThreshold: settings.reconciliation.clusterThreshold,
    neighborThreshold: settings.reconciliation.neighborThreshold,
    neighborPoolMax: settings.reconciliation.neighborPoolMax,
    searchNeighbors: (ns, vector, o) => embeddings.index.search(ns, vector, o),
    embed: embeddings.embedRecords,
    logger,
    breaker: new CircuitBreaker({
      onChange: (projectId, state) =>
        logger.warn(`reconciliation judge breaker ${state}`, { project_id: projectId }),
    }),
  });
  // One ranking for every surface: the hook, the API, the CLI and MCP (through the API).
  const search = createSearcher({
    searchCandidates: (ns, q, o) => storage.searchCandidates(ns, q, o),
    searchLexical: (ns, q, o) => storage.searchLexical(ns, q, o),
    searchVector: createVectorSearcher(vectorSources, {
      modelId: () => embeddings.index.model,
      embedTimeoutMs: settings.embedding.timeoutMs,
    }),
    searchHybrid: hybrid,
    termSpace: (ns) => termSpaces.spaceFor(ns),
  }, {
    onSearch: (trace) => {
      if (logger.debugEnabled) logger.debug("retrieval-search", { ...trace });
    },
  });
  const retrieve = createAssembler({
    storage,
    search: (ns, q, o) => search(ns, q, { ...o, mode: DEFAULT_SEARCH_MODE }),
    budgetMs: settings.retrieval.budgetMs,
    limit: settings.retrieval.limit,
    tokenBudget: settings.retrieval.tokenBudget,
    logger,
    onRetrieval: (info) =>
      bus.publish({ type: "retrieval", ...info, at: new Date().toISOString() }),
  });
  const resume = createResumeAssembler({
    storage,
    tokenBudget: settings.retrieval.tokenBudget,
    logger,
  });
  const extraction = await startExtraction(settings, {
    storage,
    logger,
    runner: options.runner,
    embed: embeddings.embedRecords,
    commitChunk: reconciler.commitChunk,
    onDeleted: (ids) => {
      embeddings.recordsDeleted(ids);
      bus.publish({ type: "records_deleted", record_ids: ids });
    },
    onCommitted: (records) => {
      embeddings.recordsCommitted(records);
      for (const r of records) publishSaved(r);
    },
    onRun: (run) => bus.publish({ type: "run", run: { ...run } }),
  });
  const onStored: EventStoredHook = (info) => {
    extraction.notify(info.project_id, info.bytes, {
      kind: info.kind,
      surface: info.event.source.surface,
      at: info.event.valid_time,
    });
    if (bus.size > 0) {
      bus.publish({
        type: "event",
        event_id: info.event.event_id,
        namespace: info.namespace,
        kind: info.kind,
        surface: info.event.source.surface,
        preview: previewBody(info.event.body),
        at: info.event.valid_time,
      });
    }
    options.onStored?.(info);
  };
  const onMoved: NamespaceMovedHook = (info) => {
    // The moved records' vectors were loaded (if at all) under the old namespace: reload lazily.
    embeddings.index.clear();
    // The stored spaces of both namespaces were dropped with the move: forget them, train anew.
    termSpaces.recordsForgotten();
    termSpaces.recordsChanged(info.to);
    extraction.projectMoved(projectIdFromNamespace(info.from)!, info.to_project_id).catch(
      (error) => logger.warn("re-arming a moved project failed", { error: String(error) }),
    );
    logger.info("project moved to its repository's namespace", {
      from: info.from,
      to: info.to,
      ...info.moved,
    });
  };
  const pipeline = new IngestPipeline({
    storage,
    retrieve: withSessionStart(retrieve, { resume, storage, logger }),
    resume,
    onStored,
    onMoved,
  });
  // Changes are captured for the team only while one is configured (the outbox would otherwise
  // grow with nothing to publish it).
  storage.setTeamCapture(settings.team.url !== "");
  // In a Worker: whatever the PostgreSQL client throws ends that Worker, never the collector.
  const team = settings.team.url === "" ? null : startTeamSyncWorker({
    url: settings.team.url,
    password: readTeamPassword(settings.paths.teamPassword),
    dbPath: settings.paths.db,
    store: storage,
    writeTurns: turns,
    home: Deno.env.get("HOME"),
    logger,
    pollMs: settings.team.pollMs,
    sandbox: options.teamSandbox ?? false,
    onApplied: ({ saved, deleted }) => {
      for (const r of saved) {
        embeddings.recordSaved(r);
        publishSaved(r);
      }
      if (deleted.length > 0) {
        embeddings.recordsDeleted(deleted);
        bus.publish({ type: "records_deleted", record_ids: deleted });
      }
    },
  });
  const ctx: CollectorContext = {
    storage,
    search,
    pipeline,
    settings,
    logger,
    token,
    extraction,
    bus,
    status: () => ({
      spool: spoolSummary(settings),
      embedding: embeddings.status(),
      term_spaces: termSpaces.status(),
      reconciliation: {
        enabled: settings.reconciliation.enabled,
        judge_breakers: reconciler.breaker.statuses(),
      },
      team: team?.status() ?? null,
      memory: processMemory(),
    }),
  };
  // Events the shims spooled while we were down come in first (before new ones, keeping their
  // order), then periodically for events spooled because we were slow.
  // drainSpool logs its own one "spool drained" line.
  const drain = () =>
    drainSpool(settings.paths.spool, (event) => pipeline.ingest(event), { logger }).then(() => {});
  await drain();
  const app = createApp(ctx, {
    onRecordSaved: (r) => {
      embeddings.recordSaved(r);
      publishSaved(r);
    },
    onRecordsDeleted: (ids) => {
      termSpaces.recordsForgotten();
      embeddings.recordsDeleted(ids);
      bus.publish({ type: "records_deleted", record_ids: ids });
    },
  });
  // The port first: it is what makes this process the collector (a socket file left in the data
  // dir is then a dead collector's). With the Unix socket, the port is held by the connection
  // guard, which relays to it; without (in-process tests), by Deno.serve.
  let tcp: { listener: Deno.TcpListener } | { server: Deno.HttpServer<Deno.NetAddr> };
  try {
    tcp = options.unixSocket
      ? {
        listener: bindTcpGuard({
          hostname: settings.collector.host,
          port: settings.collector.port,
        }),
      }
      : { server: await serveTcp(settings, app.fetch) };
  } catch (error) {
    await team?.close();
    await embeddings.close();
    await termSpaces.close();
    storage.close();
    if (error instanceof Deno.errors.AddrInUse) {
      throw new Error(
        `port ${settings.collector.port} on ${settings.collector.host} is in use: another ` +
          `collector may be running (try \`kiro-learn status\`), or set collector.port`,
      );
    }
    throw error;
  }
  const addr = "listener" in tcp ? tcp.listener.addr as Deno.NetAddr : tcp.server.addr;
  const url = collectorBaseUrl(addr.hostname, addr.port);
  if (options.writePidFile) {
    Deno.writeTextFileSync(settings.paths.pid, `${Deno.pid}\n`, { mode: 0o600 });
  }
  const socket = options.unixSocket
    ? await listenOnSocket(settings, { token, logger, handler: app.fetch })
    : null;
  let server: Deno.HttpServer<Deno.NetAddr> | null = "server" in tcp ? tcp.server : null;
  let guard: TcpGuard | null = null;
  let relay: Deno.HttpServer<Deno.UnixAddr> | null = null;
  if ("listener" in tcp) {
    relay = await serveOnSocket(settings.paths.tcpRelaySocket, app.fetch).catch((error) => {
      logger.warn("no Unix socket for the port's connection guard", {
        path: settings.paths.tcpRelaySocket,
        error: error instanceof Error ? error.message : String(error),
      });
      return null;
    });
    if (relay !== null) {
      guard = startTcpGuard(tcp.listener, {
        upstream: settings.paths.tcpRelaySocket,
        onAcceptError: (error) =>
          logger.warn("could not accept a connection on the collector's port; still listening", {
            error: error instanceof Error ? error.message : String(error),
          }),
      });
    } else {
      // No socket to relay to (a data dir path too long for one): the port is served directly,
      // without the flood guard.
      tcp.listener.close();
      server = await serveTcp(settings, app.fetch);
    }
  }
  logger.info("collector listening", {
    url,
    socket: socket === null ? null : settings.paths.socket,
    data_dir: settings.dataDir,
    pid: Deno.pid,
  });
  const drainTimer = setInterval(drain, options.spoolDrainMs ?? 30_000);
  let closed: Promise<void> | undefined;
  return {
    url,
    port: addr.port,
    token,
    storage,
    request: async (input, init) => await app.request(input, init),
    extraction,
    embeddings,
    termSpaces,
    bus,
    team,
    close() {
      closed ??= (async () => {
        clearInterval(drainTimer);
        ctx.viewer?.close(); // ends open live feeds; a graceful shutdown would wait for them
        // Extraction first: it ends running agents at once, and a request waiting on a run
        // (a flush) would otherwise hold server.shutdown() until the agent's timeout.
        const extractionClosed = extraction.close();
        // The port stops taking connections first; the server then answers what it has.
        await guard?.stopAccepting();
        await Promise.all([server?.shutdown(), socket?.shutdown(), relay?.shutdown()]);
        await guard?.close();
        if (socket !== null) removeIfPresent(settings.paths.socket);
        if (relay !== null) removeIfPresent(settings.paths.tcpRelaySocket);
        await extractionClosed;
        await team?.close();
        await embeddings.close();
        await termSpaces.close();
        storage.close();
        if (options.writePidFile) {
          try {
            Deno.removeSync(settings.paths.pid);
          } catch {
            // Already gone.
          }
        }
        logger.info("collector stopped");
      })();
      return closed;
    },
  };
}

/**
 * Serves `handler` on the Unix socket at `path` (0600; a file left there is a dead collector's,
 * since the port is ours), resolving once it listens.
 */
async function serveOnSocket(
  path: string,
  handler: (request: Request) => Response | Promise<Response>,
): Promise<Deno.HttpServer<Deno.UnixAddr>> {
  removeIfPresent(path);
  const { promise, resolve } = Promise.withResolvers<void>();
  const server = Deno.serve({ path, onListen: () => resolve() }, handler);
  await promise;
  Deno.chmodSync(path, 0o600);
  return server;
}

/** Serves `handler` on the settings' host and port with Deno.serve; resolves once it listens. */
async function serveTcp(
  settings: Settings,
  handler: (request: Request) => Response | Promise<Response>,
): Promise<Deno.HttpServer<Deno.NetAddr>> {
  const { promise, resolve } = Promise.withResolvers<void>();
  const server = Deno.serve({
    hostname: settings.collector.host,
    port: settings.collector.port,
    onListen: () => resolve(),
  }, handler);
  await promise;
  return server;
}

/**
 * Serves `handler` on the data dir's Unix socket too, and writes the `Authorization` header file
 * the hook launchers send on it. Called once the TCP port is ours, so a socket file already there
 * is a dead collector's (killed without its shutdown) and is replaced. A socket that cannot be
 * made (a data dir path too long for one, say) is logged; hooks then take the shim's path.
 */
async function listenOnSocket(
  settings: Settings,
  options: {
    token: string;
    logger: Logger;
    handler: (request: Request) => Response | Promise<Response>;
  },
): Promise<Deno.HttpServer<Deno.UnixAddr> | null> {
  const path = settings.paths.socket;
  try {
    writeSecureFile(settings.paths.hookAuth, `Authorization: Bearer ${options.token}\n`);
    // A fresh collector answers: hooks may wait their full budget again.
    removeIfPresent(settings.paths.unanswered);
    return await serveOnSocket(path, options.handler);
  } catch (error) {
    options.logger.warn("no Unix socket for the hooks' fast path; hooks run their shim instead", {
      path,
      error: error instanceof Error ? error.message : String(error),
    });
    return null;
  }
}

function removeIfPresent(path: string): void {
  try {
    Deno.removeSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/** The spool as status shows it: `filling` past 80% of its bound, `dropped` when it overflowed. */
export function spoolSummary(settings: Settings): SpoolStatus & { filling: boolean } {
  const spool = spoolStatus(settings.paths.spool, { maxBytes: settings.spool.maxBytes });
  return { ...spool, filling: spoolFilling(spool) };
}

/** A short one-line preview of an event body for the live feed. */
export function previewBody(body: Event["body"]): string {
  const text = body.type === "text"
    ? body.content
    : body.type === "message"
    ? body.turns.at(-1)?.content ?? ""
    : JSON.stringify(body.data) ?? "";
  return text.replace(/\s+/g, " ").slice(0, 200);
}

/**
 * The collector's memory in bytes: resident, the main V8 heap (reserved and used) and memory
 * outside it (array buffers such as the vector index). Workers' heaps count only in `rss`.
 */
function processMemory(): {
  rss: number;
  heap_total: number;
  heap_used: number;
  external: number;
} {
  const m = Deno.memoryUsage();
  return { rss: m.rss, heap_total: m.heapTotal, heap_used: m.heapUsed, external: m.external };
}
