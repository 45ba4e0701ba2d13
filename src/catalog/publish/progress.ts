// Progress of a long command on stderr: each stage with its duration and the process memory.

export class Progress {
  private readonly started = performance.now();
  private stageStarted = performance.now();
  private stage = '';

  constructor(private readonly quiet = false) {}

  /** Starts a stage (ending the previous one). */
  step(name: string, detail = ''): void {
    this.finishStage();
    this.stage = name;
    this.stageStarted = performance.now();
    this.say(`${name}${detail ? ` (${detail})` : ''} ...`);
  }

  note(text: string): void {
    this.say(`  ${text}`);
  }

  finishStage(): void {
    if (this.stage) this.say(`  done in ${((performance.now() - this.stageStarted) / 1000).toFixed(1)} s, rss ${rssGiB()} GiB`);
    this.stage = '';
  }

  elapsedSeconds(): number {
    return (performance.now() - this.started) / 1000;
  }

  private say(line: string): void {
    if (!this.quiet) process.stderr.write(`[${this.elapsedSeconds().toFixed(1).padStart(6)} s] ${line}\n`);
  }
}

export function rssGiB(): string {
  return (process.memoryUsage().rss / 2 ** 30).toFixed(2);
}

/** The largest resident set this process has had, in GiB. */
export function peakRssGiB(): number {
  return process.resourceUsage().maxRSS / 2 ** 20;
}
