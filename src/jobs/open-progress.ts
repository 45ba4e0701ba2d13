// What opening a catalog snapshot for serving is doing and how far, said every few seconds: on a large
// catalog it takes minutes (the text indexes, the documents, the change feed), and a first start serves
// 503 meanwhile. Several lanes run at once (the worker building the indexes, the main thread's tables).

import type { Logger } from 'pino';

export interface ProgressOptions {
  /** How often a line is logged while something is opening; 0 logs none. */
  intervalMs: number;
  /** Also given each line, readable (`npm start` writes them to stderr). */
  echo?: (line: string) => void;
}

export interface Step {
  /** What is being done, e.g. "indexing titles and descriptions". */
  step: string;
  done?: number;
  total?: number;
  /** What done and total count, e.g. "documents". */
  unit?: string;
}

const count = (n: number) => n.toLocaleString('en-US');

function describe({ step, done, total, unit }: Step): string {
  if (total === undefined) return step;
  return `${step}: ${count(done ?? 0)} of ${count(total)}${unit ? ` ${unit}` : ''}`;
}

export class OpenProgress {
  private readonly lanes = new Map<string, Step>();
  private readonly started = performance.now();
  private readonly timer: NodeJS.Timeout | undefined;

  /** `subject` opens each line, e.g. "opening catalog snapshot 2026-11-18T06:00:00Z". */
  constructor(
    private readonly subject: string,
    private readonly logger: Logger,
    private readonly options: ProgressOptions,
  ) {
    if (options.intervalMs > 0) {
      this.timer = setInterval(() => this.report(), options.intervalMs);
      this.timer.unref();
    }
  }

  /** What `lane` is doing now. */
  set(lane: string, step: Step): void {
    this.lanes.set(lane, step);
  }

  /** `lane` has finished. */
  done(lane: string): void {
    this.lanes.delete(lane);
  }

  /** Everything has finished (or failed): no more lines. */
  end(): void {
    clearInterval(this.timer);
    this.lanes.clear();
  }

  private report(): void {
    if (this.lanes.size === 0) return;
    const steps = [...this.lanes.values()];
    const elapsed = Math.round((performance.now() - this.started) / 1000);
    const line = `${this.subject}: ${steps.map(describe).join('; ')}, ${elapsed} s`;
    this.logger.info({ steps, elapsed_s: elapsed }, line);
    this.options.echo?.(line);
  }
}

/** Runs `open` with an OpenProgress for `subject`, ended however `open` ends. */
export async function withProgress<T>(
  subject: string,
  logger: Logger,
  options: ProgressOptions,
  open: (progress: OpenProgress) => Promise<T>,
): Promise<T> {
  const progress = new OpenProgress(subject, logger, options);
  try {
    return await open(progress);
  } finally {
    progress.end();
  }
}
