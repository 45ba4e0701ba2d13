// What a generation is asked for, and the rates of the market model every module reads.

export interface GenerateOptions {
  /** Openings listed on day 1. */
  jobs: number;
  seed: number;
  days: number;
  /** Date of day 1, YYYY-MM-DD. */
  start: string;
}

export const RATES = {
  openingsPerCompany: 20,
  newOpeningsPerDay: 0.03,
  closuresPerDay: 0.025,
  registered: 0.88,
  backlogMaxAgeDays: 120,
  reposts: 0.06,
  editsPerDay: 0.04,
  lateDuplicates: 0.005,
  partialReads: 0.03,
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
