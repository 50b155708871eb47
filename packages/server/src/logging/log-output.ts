/** Where log lines go: a stream, or anything with `write`. */
export interface LogOutput {
  write(text: string): unknown;
  /** A terminal: pretty lines (in colour unless NO_COLOR is set) by default. */
  readonly isTTY?: boolean;
}
