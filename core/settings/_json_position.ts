/**
 * Locate the first syntax error in a JSON text. V8's JSON.parse messages no longer carry a
 * position, and a user fixing settings.json by hand needs a line and column.
 *
 * @module
 */

/** Where and why a JSON text stops being valid. */
export interface JsonErrorLocation {
  /** 0-based character offset. */
  offset: number;
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
  /** Short reason, e.g. `unexpected "}"`. */
  reason: string;
}

class Stop extends Error {
  constructor(readonly offset: number, readonly reason: string) {
    super(reason);
  }
}

/** The location of the first syntax error in `text`, or `null` if it is valid JSON. */
export function locateJsonError(text: string): JsonErrorLocation | null {
  let i = 0;

  const describe = (at: number) =>
    at >= text.length ? "unexpected end of file" : `unexpected ${JSON.stringify(text[at])}`;
  const fail = (at: number, reason = describe(at)): never => {
    throw new Stop(at, reason);
  };
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (text[i] !== ch) fail(i);
      i++;
    }
  };
  const string = () => {
    i++; // opening quote
    while (true) {
      if (i >= text.length) fail(i, "unterminated string");
      const ch = text[i];
      if (ch === '"') {
        i++;
        return;
      }
      if (ch < " ") fail(i, "control character in string");
      if (ch === "\\") {
        const esc = text[i + 1];
        if (esc === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail(i, "bad \\u escape");
          i += 6;
        } else if (esc !== undefined && '"\\/bfnrt'.includes(esc)) {
          i += 2;
        } else {
          fail(i, "bad escape");
        }
      } else {
        i++;
      }
    }
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (m === null) fail(i);
    i += m![0].length;
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === "{") {
      i++;
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      while (true) {
        ws();
        if (text[i] !== '"') fail(i, `${describe(i)} (expected a quoted property name)`);
        string();
        ws();
        if (text[i] !== ":") fail(i, `${describe(i)} (expected ":")`);
        i++;
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return;
        }
        fail(i, `${describe(i)} (expected "," or "}")`);
      }
    }
    if (ch === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      while (true) {
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return;
        }
        fail(i, `${describe(i)} (expected "," or "]")`);
      }
    }
    if (ch === '"') return string();
    if (ch === "t") return literal("true");
    if (ch === "f") return literal("false");
    if (ch === "n") return literal("null");
    if (ch === "-" || (ch >= "0" && ch <= "9")) return number();
    fail(i);
  };

  try {
    value();
    ws();
    if (i < text.length) fail(i, `${describe(i)} after the end of the JSON value`);
    return null;
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    const before = text.slice(0, e.offset);
    const line = before.split("\n").length;
    const column = e.offset - (before.lastIndexOf("\n") + 1) + 1;
    return { offset: e.offset, line, column, reason: e.reason };
  }
}
