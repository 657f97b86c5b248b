/**
 * The collector's HTTP server: the Hono app (API routes, the viewer, the security checks in
 * front of both) and the context every route reads.
 *
 * @module
 */
export * from "./app.ts";
export type { CollectorContext } from "./context.ts";
export {
  bindTcpGuard,
  startTcpGuard,
  TCP_GUARD_LIMITS,
  type TcpGuard,
  type TcpGuardLimits,
} from "./tcp_guard.ts";
