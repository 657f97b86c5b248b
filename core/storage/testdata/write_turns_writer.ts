// A writer on another thread: announces itself in the turns it is given and holds its turn
// until told to let go (the collector's main thread, seen from the team sync Worker).
import { writeTurns } from "../write_turns.ts";

const scope = self as unknown as {
  onmessage:
    | ((event: MessageEvent<{ buffer: SharedArrayBuffer; hold: SharedArrayBuffer }>) => void)
    | null;
  postMessage(message: string): void;
};

scope.onmessage = (event) => {
  const hold = new Int32Array(event.data.hold);
  writeTurns(event.data.buffer).announce(() => {
    scope.postMessage("holding");
    // Blocked as a writer in SQLite's busy handler would be, until the test lets go.
    Atomics.wait(hold, 0, 0);
  });
  scope.postMessage("done");
};
