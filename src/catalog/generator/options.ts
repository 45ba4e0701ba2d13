// What a generation is asked for, and the rates of the market model every module reads.

export interface GenerateOptions {
  /** Openings listed on day 1. */
  jobs: number;
  seed: number;
  days: number;
  /** Date of day 1, YYYY-MM-DD. */
  start: string;
}

/** Day 1 of a generation unless asked otherwise. */
export const DEFAULT_START = '2026-11-18';

export const RATES = {
  openingsPerCompany: 20,
  newOpeningsPerDay: 0.03,
  closuresPerDay: 0.025,
  registered: 0.88,
  /** A day-1 opening's age in days is geometric with this rate (capped below): about 11 % are older than 60 days. */
  backlogAgePerDay: 0.035,
  backlogMaxAgeDays: 120,
  /** Day-1 openings (posted long enough before) that closed in the five days before day 1: a copy still lingers on day 1. */
  backlogClosed: 0.1,
  reposts: 0.06,
  editsPerDay: 0.04,
  lateDuplicates: 0.005,
  partialReads: 0.03,
  /** Boards their collector has read only partly for over 31 days (blocked, broken paging), each recovering on a day of its own. */
  stalledBoards: 0.06,
  stalledRecoveryDays: 120,
  mergesPerRelease: 0.01,
  newCompaniesPerRelease: 0.002,
  inactiveRegistryOnly: 0.02,
} as const;

/** Independent random streams, so that changing how one concern draws does not shift another. */
export const STREAM = {
  company: 1,
  opening: 2,
  timeline: 3,
  plan: 4,
  content: 5,
  text: 6,
  posting: 7,
  day: 8,
  registry: 9,
  place: 10,
} as const;
