/**
 * One attack's figure: how many requests (or actions) were tried, how many met the defence
 * they should have met, and what they got.
 *
 * @module
 */

/** The figure of one attack. */
export interface AttackFigure {
  /** The attack. */
  attack: string;
  /** Requests or actions tried. */
  tried: number;
  /** How many were refused or handled as they must be. */
  held: number;
  /** What they got, in words (statuses and counts). */
  outcome: string;
  /** The ones that did not hold, each said in a line (empty when the attack held). */
  failures: string[];
}

/** Tallies tries: each is held or not, and adds a label to the outcome. */
export class Tally {
  #tried = 0;
  #held = 0;
  #labels = new Map<string, number>();
  #failures: string[] = [];

  /** Counts one try; `label` groups it in the outcome (a status, say). */
  add(held: boolean, label: string, failure = ""): void {
    this.#tried++;
    if (held) this.#held++;
    else this.#failures.push(failure || label);
    this.#labels.set(label, (this.#labels.get(label) ?? 0) + 1);
  }

  /** Counts a check that is not a request (a state that must be unchanged, say). */
  check(held: boolean, failure: string): void {
    if (!held) this.#failures.push(failure);
  }

  /** The figure, with `extra` appended to the outcome. */
  figure(attack: string, extra = ""): AttackFigure {
    const labels = [...this.#labels].map(([label, n]) => `${label} ×${n}`).join(", ");
    return {
      attack,
      tried: this.#tried,
      held: this.#failures.length === 0 ? this.#held : Math.min(this.#held, this.#tried - 1),
      outcome: [labels, extra].filter(Boolean).join("; "),
      failures: this.#failures,
    };
  }
}
