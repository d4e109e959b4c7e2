// RFC 4180 CSV, fed line by line: a quoted field may contain commas, doubled quotes and line breaks.

export type CsvResult = { ok: true; fields: string[] } | { ok: false; reason: string } | { ok: 'open' };

/** Parses one record's text. `open` means a quoted field is still open at the end (continues on the next line). */
export function parseCsvRecord(text: string): CsvResult {
  if (text.indexOf('"') < 0) return { ok: true, fields: text.split(',') };
  const fields: string[] = [];
  let i = 0;
  const n = text.length;
  for (;;) {
    if (i < n && text.charCodeAt(i) === 34) {
      let value = '';
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) return { ok: 'open' };
        value += text.slice(i, q);
        if (text.charCodeAt(q + 1) === 34) {
          value += '"';
          i = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      fields.push(value);
      if (i === n) return { ok: true, fields };
      if (text.charCodeAt(i) !== 44) return { ok: false, reason: `unexpected character after a closing quote at column ${i + 1}` };
      i++;
    } else {
      const comma = text.indexOf(',', i);
      const value = comma < 0 ? text.slice(i) : text.slice(i, comma);
      if (value.indexOf('"') >= 0) return { ok: false, reason: `stray quote in an unquoted field at column ${i + value.indexOf('"') + 1}` };
      fields.push(value);
      if (comma < 0) return { ok: true, fields };
      i = comma + 1;
    }
  }
}

const MAX_RECORD_LINES = 50;

/** Assembles CSV records from lines; reports each record with the line number it starts on. */
export class CsvRecords {
  private pending: string | null = null;
  private pendingStart = 0;
  private pendingLines = 0;

  constructor(
    private readonly onRecord: (fields: string[], lineNo: number) => void,
    private readonly onError: (lineNo: number, reason: string) => void,
  ) {}

  push(line: string, lineNo: number): void {
    let text = line;
    let start = lineNo;
    if (this.pending !== null) {
      text = this.pending + '\n' + line;
      start = this.pendingStart;
      this.pendingLines++;
    }
    const r = parseCsvRecord(text);
    if (r.ok === 'open') {
      if (this.pending !== null && this.pendingLines >= MAX_RECORD_LINES) {
        this.pending = null;
        this.onError(start, `quoted field is not closed within ${MAX_RECORD_LINES} lines`);
        return;
      }
      if (this.pending === null) this.pendingLines = 1;
      this.pending = text;
      this.pendingStart = start;
      return;
    }
    this.pending = null;
    if (r.ok) this.onRecord(r.fields, start);
    else this.onError(start, r.reason);
  }

  end(): void {
    if (this.pending !== null) {
      this.onError(this.pendingStart, 'quoted field is not closed before the end of the file (truncated?)');
      this.pending = null;
    }
  }
}
