/**
 * Stored text on its way to a terminal or into a title. Memory holds what agents and tools
 * wrote, and a tool's output can hold escape sequences (OSC 0 sets the window title, CSI 2J
 * clears the screen, OSC 52 writes the clipboard, and C1 `U+009B` is a CSI by itself on many
 * terminals): printed raw, stored text could act on the user's terminal. No dependencies: the
 * shims may load it.
 *
 * @module
 */

// C0 controls (tab and newline kept), DEL and the C1 controls.
// deno-lint-ignore no-control-regex
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

// Every control, tab and newline included: a title is one line.
// deno-lint-ignore no-control-regex
const TITLE_CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * `text` made safe to print: every control character a terminal would act on (ESC, BEL, CR,
 * backspace, DEL, the C1 set, …) is shown as its JSON escape (`\u001b`, `\u0007`, `\u009b`)
 * instead; tab and newline stay. JSON escapes keep `--json` output valid JSON (`JSON.stringify`
 * leaves DEL and the C1 set raw). The one function every CLI output of stored text goes through.
 */
export function terminalSafe(text: string): string {
  return text.replace(
    TERMINAL_CONTROLS,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * `text` as a record title: every control character (tab, newline, ESC, BEL, the C1 set, …)
 * becomes a space, so no stored title carries an escape sequence to a terminal, a window title
 * or a log, and the words a control separated stay apart for search.
 */
export function plainTitle(text: string): string {
  return text.replace(TITLE_CONTROLS, " ");
}
