/**
 * A process's memory as Linux reports it, for the benchmarks' memory figures.
 *
 * @module
 */

/** A `/proc/<pid>/status` memory field: resident now (`VmRSS`) or at its peak (`VmHWM`). */
export type ProcessMemoryField = "VmRSS" | "VmHWM";

/** `field` of process `pid` in KiB (NaN when the kernel does not report it). */
export function processMemoryKib(pid: number, field: ProcessMemoryField): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
}
