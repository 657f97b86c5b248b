/**
 * Query-parameter parsing with the API's clamping rules and clear 400s.
 *
 * @module
 */
import { MAX_NAMESPACE, NAMESPACE_PATTERN } from "@kiro-learn/core/schemas";
import { RECORD_ID_PATTERN, ULID_RULE } from "@kiro-learn/core/ids";
import { errorResponse } from "./errors.ts";

/** A parsed parameter or the error response to send. */
export type ParamResult<T> = { ok: true; value: T } | { ok: false; response: Response };

/** An integer parameter, defaulted and clamped; a non-integer is a 400. */
export function intParam(
  raw: string | undefined,
  options: { name: string; fallback: number; min: number; max: number },
): ParamResult<number> {
  if (raw === undefined || raw === "") return { ok: true, value: options.fallback };
  if (!/^-?\d+$/.test(raw.trim())) {
    return { ok: false, response: errorResponse(400, `${options.name} must be an integer`) };
  }
  const value = Math.min(options.max, Math.max(options.min, Number(raw)));
  return { ok: true, value };
}

/** A paging offset: a non-negative integer, 0 when absent. */
export function offsetParam(raw: string | undefined): ParamResult<number> {
  return intParam(raw, { name: "offset", fallback: 0, min: 0, max: Number.MAX_SAFE_INTEGER });
}

/** A namespace parameter: optional unless `required`. */
export function namespaceParam(
  raw: string | undefined,
  options: { required: boolean },
): ParamResult<string | undefined> {
  if (raw === undefined || raw === "") {
    return options.required
      ? { ok: false, response: errorResponse(400, "namespace parameter is required") }
      : { ok: true, value: undefined };
  }
  if (raw.length > MAX_NAMESPACE) {
    return { ok: false, response: errorResponse(400, "parameter too long") };
  }
  if (!NAMESPACE_PATTERN.test(raw)) {
    return {
      ok: false,
      response: errorResponse(400, "invalid namespace", {
        details: "expected /actor/<user>/project/<id>/",
      }),
    };
  }
  return { ok: true, value: raw };
}

/** A memory record id in the path: `mr_` + a ULID to the spec, else a 400 saying so. */
export function recordIdParam(raw: string): ParamResult<string> {
  if (RECORD_ID_PATTERN.test(raw)) return { ok: true, value: raw };
  return {
    ok: false,
    response: errorResponse(400, "invalid record id", {
      details:
        `a record id is mr_ followed by ${ULID_RULE}, for example mr_01JD3QZ5V8N2K7M4P6R9T0W1XY`,
    }),
  };
}
