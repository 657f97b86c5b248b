/**
 * The command line's view of the collector: the one client of `@kiro-learn/core/api`, pointed
 * at the collector the settings name.
 *
 * @module
 */
import {
  collectorBaseUrl,
  type CollectorClient,
  type CollectorState,
  createCollectorClient,
  type Health,
  portTakenMessage,
  probeCollector,
} from "@kiro-learn/core/api";
import { resolveProject } from "@kiro-learn/core/project";
import type { Settings } from "@kiro-learn/core/settings";

/** Base URL of the collector the settings point at. */
export function collectorUrl(settings: Settings): string {
  return collectorBaseUrl(settings.collector.host, settings.collector.port);
}

/** The client for the collector the settings point at. */
export function clientFor(settings: Settings): CollectorClient {
  return createCollectorClient({
    host: settings.collector.host,
    port: settings.collector.port,
    tokenPath: settings.paths.token,
  });
}

/**
 * Calls any route; throws the client's `CollectorUnavailableError` (whose message says how to
 * start the collector) when nothing answers.
 */
export function callCollector(
  settings: Settings,
  path: string,
  options: { method?: string; body?: unknown } = {},
): Promise<{ status: number; body: unknown }> {
  return clientFor(settings).request(options.method ?? "GET", path, { body: options.body });
}

/**
 * The namespace of the project `dir` belongs to (core's `resolveProject`, as every surface
 * computes it). When it is a repository's remote-derived namespace, the collector is asked
 * first to move the project's older namespace into it, as the project's next hook event would,
 * so a search or export right after the upgrade sees the project's memory.
 */
export async function projectNamespace(settings: Settings, dir: string): Promise<string> {
  const project = resolveProject(dir);
  if (project.id_source === "git-remote") {
    await clientFor(settings).identifyProject(project.namespace, project.project_root);
  }
  return project.namespace;
}

/** Who holds the collector's port: ours, someone else's, or nobody (see core/api). */
export function probe(settings: Settings): Promise<CollectorState> {
  return probeCollector({
    host: settings.collector.host,
    port: settings.collector.port,
    tokenPath: settings.paths.token,
  });
}

/** What to say when the port is held by a process that is not this data dir's collector. */
export function portTaken(settings: Settings): string {
  return portTakenMessage(settings.collector.port, { settingsPath: settings.paths.settings });
}

/** Health of the collector, or null when it is down. */
export function health(settings: Settings): Promise<Health | null> {
  return clientFor(settings).health();
}
