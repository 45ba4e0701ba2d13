// Days of a generation: each day's cut-off (06:00Z), registry release days and timestamps as ISO strings.

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export class Calendar {
  private readonly day1: number;

  constructor(readonly start: string) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || Number.isNaN(Date.parse(`${start}T06:00:00.000Z`)))
      throw new Error(`start must be a date YYYY-MM-DD; got "${start}"`);
    this.day1 = Date.parse(`${start}T06:00:00.000Z`);
  }

  /** Every read of `day` finished before this instant; days before 1 extend backwards. */
  cutoff(day: number): number {
    return this.day1 + (day - 1) * DAY_MS;
  }

  /** The day whose cut-off is the first after `ms`: the first day a thing seen at `ms` can be delivered. */
  firstDayAfter(ms: number): number {
    return Math.floor((ms - this.day1) / DAY_MS) + 2;
  }

  private readonly dates = new Map<number, string>();

  date(day: number): string {
    let date = this.dates.get(day);
    if (date === undefined) {
      date = new Date(this.cutoff(day)).toISOString().slice(0, 10);
      this.dates.set(day, date);
    }
    return date;
  }

  releaseId(day: number): string {
    return `r-${this.date(day)}`;
  }
}

/** A registry release ships on day 1 and then weekly from day 3 (days 3, 10, 17, ...). */
export function isReleaseDay(day: number): boolean {
  return day === 1 || (day - 1) % 7 === 2;
}

export function releaseDays(days: number): number[] {
  const list: number[] = [];
  for (let day = 1; day <= days; day += 1) if (isReleaseDay(day)) list.push(day);
  return list;
}

const dayPrefixes = new Map<number, string>();
const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/** RFC 3339 UTC with milliseconds, as Date.toISOString writes it; the date part is cached per day because it is hot. */
export function iso(ms: number): string {
  const t = Math.round(ms);
  const day = Math.floor(t / DAY_MS);
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    if (dayPrefixes.size > 4096) dayPrefixes.clear();
    dayPrefixes.set(day, prefix);
  }
  const rest = t - day * DAY_MS;
  const millis = rest % 1000;
  const seconds = Math.floor(rest / 1000);
  return `${prefix}${pad2(Math.floor(seconds / 3600))}:${pad2(Math.floor(seconds / 60) % 60)}:${pad2(seconds % 60)}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}
