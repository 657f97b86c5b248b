/**
 * How the daemon starts its Workers (the embedder, term-space training, team sync): each with the
 * permissions it needs, never the daemon's own.
 *
 * @module
 */

/** Options for `new Worker`, with Deno's permission field. */
export type DaemonWorkerOptions = WorkerOptions & {
  deno?: { permissions: Deno.PermissionOptions };
};

/** Permissions of a Worker that only computes: read `read` (its code, its model), nothing else. */
export function computeOnlyPermissions(read: string[]): Deno.PermissionOptionsObject {
  return {
    read,
    net: false,
    env: false,
    run: false,
    write: false,
    ffi: false,
    sys: false,
    import: false,
  };
}

/**
 * A module Worker named `name`, held to `permissions` unless `sandbox` is false (tests that run
 * without the daemon's flags, where a Worker cannot be granted what its parent lacks).
 */
export function daemonWorkerOptions(
  name: string,
  options: { permissions: Deno.PermissionOptionsObject; sandbox: boolean },
): DaemonWorkerOptions {
  const out: DaemonWorkerOptions = { type: "module", name };
  if (options.sandbox) out.deno = { permissions: options.permissions };
  return out;
}
