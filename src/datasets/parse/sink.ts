// How parsers hand rows back: one call per accepted row, one per rejected line (with its number).

export interface Sink<T> {
  row(row: T, lineNo: number): void;
  /** A line that looks like data but is malformed. */
  reject(lineNo: number, reason: string): void;
}

/** A line-oriented parser: fed every line of one file in order, then end(). */
export interface LineParser {
  push(line: string, lineNo: number): void;
  end(): void;
}

/** The file is not in the expected format at all (wrong header, binary data): stop reading it. */
export class FormatError extends Error {
  constructor(readonly lineNo: number, reason: string) {
    super(reason);
    this.name = 'FormatError';
  }
}
