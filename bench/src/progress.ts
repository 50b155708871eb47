interface Output {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * Progress on stderr: one rewritten line on a terminal, a line per quarter otherwise (CI logs).
 * `pnpm bench` runs for minutes; silence would look like a hang.
 */
export class Progress {
  readonly #out: Output;
  readonly #steps: number;
  #step = 0;
  #label = "";
  #started = performance.now();
  #lastQuarter = -1;

  constructor({ out, steps }: { out: Output; steps: number }) {
    this.#out = out;
    this.#steps = steps;
  }

  /** Starts the next step. */
  begin(label: string): void {
    this.#finishLine();
    this.#step += 1;
    this.#label = label;
    this.#started = performance.now();
    this.#lastQuarter = -1;
    this.#write(`[${this.#step}/${this.#steps}] ${label}`);
  }

  /** Reports `done` of `total` units of the current step. */
  readonly update = (done: number, total: number): void => {
    const fraction = total === 0 ? 1 : Math.min(1, done / total);
    if (this.#out.isTTY === true) {
      this.#write(
        `[${this.#step}/${this.#steps}] ${this.#label} … ${done}/${total} (${this.#seconds()} s)`,
      );
      return;
    }
    const quarter = Math.floor(fraction * 4);
    if (quarter > this.#lastQuarter) {
      this.#lastQuarter = quarter;
      this.#out.write(`  ${this.#label}: ${done}/${total} (${this.#seconds()} s)\n`);
    }
  };

  /** Ends the current step with a result line. */
  done(summary: string): void {
    this.#write(`[${this.#step}/${this.#steps}] ${this.#label}: ${summary} (${this.#seconds()} s)`);
    this.#finishLine();
  }

  #seconds(): string {
    return ((performance.now() - this.#started) / 1000).toFixed(0);
  }

  #pending = false;

  #write(line: string): void {
    if (this.#out.isTTY === true) {
      this.#out.write(`\r\x1b[2K${line}`);
      this.#pending = true;
    } else {
      this.#out.write(`${line}\n`);
    }
  }

  #finishLine(): void {
    if (this.#pending) this.#out.write("\n");
    this.#pending = false;
  }
}
