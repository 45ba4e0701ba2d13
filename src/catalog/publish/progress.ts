// Progress of a long command on stderr: each stage with its duration and the process memory.

export class Progress {
  private readonly started = performance.now();
  private stageStarted = performance.now();
  private stage = '';
  private stagePeak = 0;
  private sampler: NodeJS.Timeout | undefined;

  constructor(private readonly quiet = false) {}

  /** Starts a stage (ending the previous one). */
  step(name: string, detail = ''): void {
    this.finishStage();
    this.stage = name;
    this.stageStarted = performance.now();
    this.stagePeak = process.memoryUsage().rss;
    // The process's memory is sampled through the stage, so the report shows each stage's peak.
    this.sampler = setInterval(() => (this.stagePeak = Math.max(this.stagePeak, process.memoryUsage().rss)), 250);
    this.sampler.unref();
    this.say(`${name}${detail ? ` (${detail})` : ''} ...`);
  }

  note(text: string): void {
    this.say(`  ${text}`);
  }

  finishStage(): void {
    clearInterval(this.sampler);
    if (this.stage) {
      const peak = Math.max(this.stagePeak, process.memoryUsage().rss) / 2 ** 30;
      this.say(
        `  done in ${((performance.now() - this.stageStarted) / 1000).toFixed(1)} s, memory ${rssGiB()} GiB (peak ${peak.toFixed(2)} GiB)`,
      );
    }
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
