import type { CliOutput } from './common';

/** Long CLI work reports how far it is; the command prints its own summary line when done. */
export interface Progress {
  /** `done` of `total` (when known) so far, with an optional note such as the step's name. */
  update(done: number, total?: number, note?: string): void;
  /** Clears the line, so the summary that follows starts clean. */
  end(): void;
}

const QUIET: Progress = { update() {}, end() {} };
/** A redraw at most this often: a copy of thousands of files must not spend its time on the terminal. */
const REDRAW_MS = 100;

/**
 * A progress line (`label 12/40 note`) rewritten in place on a terminal. Nothing at all when the output
 * is not one (a pipe, a file, CI's log, a test's buffer): there only the summary line is printed.
 */
export function progress(out: CliOutput, label: string): Progress {
  if (!out.isTTY) return QUIET;
  let drawnAt = 0;
  let shown = false;
  return {
    update(done, total, note) {
      const now = Date.now();
      if (shown && now - drawnAt < REDRAW_MS && done !== total) return;
      drawnAt = now;
      shown = true;
      out.write(`\r\x1b[K${label} ${done}${total === undefined ? '' : `/${total}`}${note ? ` ${note}` : ''}`);
    },
    end() {
      if (shown) out.write('\r\x1b[K');
      shown = false;
    },
  };
}
