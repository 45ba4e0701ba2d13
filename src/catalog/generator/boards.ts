// The board a source lists a company's postings on, and since when it exists.

import type { SourceRef } from '../reference/sources.js';
import type { Calendar } from './calendar.js';
import type { Company } from './companies.js';

export function boardOf(source: SourceRef, company: Company, date: string): string {
  if (source.board === 'domain') return company.domain ?? company.name.slug;
  if (source.board === 'slug') return company.name.slug;
  if (source.name === 'commoncrawl-jobs') return `cc-main-${date.slice(0, 7)}`;
  return `${source.name === 'partner-feed' ? 'partner' : 'feed'}-${(company.index % 7) + 1}`;
}

/** The first day a board of the name `boardOf` gives on `day` exists: a monthly crawl names its board by the month. */
export function boardSince(source: SourceRef, day: number, calendar: Calendar): number {
  return source.name === 'commoncrawl-jobs' ? day - Number(calendar.date(day).slice(8, 10)) + 1 : -Infinity;
}
