// The groups of GET /v1/jobs/count and GET /v1/jobs/trends: what each group_by reads of a job's serving
// row (sql/serve/catalog.sql) and how its values are named. One table, read by the count's SQL
// (src/jobs/service.ts) and by the versions' group columns (src/jobs/trend-groups.ts).

export const GROUP_BY = [
  'employer',
  'company_id',
  'work_arrangement',
  'country',
  'state',
  'msa',
  'employment_type',
  'source_class',
  'currentness',
  'pay_band',
  'soc_code',
  'soc_major',
  'skills',
] as const;
export type GroupBy = (typeof GROUP_BY)[number];

/**
 * Where a group's values are in a job row:
 * - `one`: one value a job, its `column`, named by `name` (an SQL expression of the column's value;
 *   by default the value itself). A coded column, or codes sharing a major group, is counted first and
 *   named after: grouping a million rows by a small number is several times quicker than by a string.
 * - `list`: the distinct values the row lists in `column`; none: the null group.
 * - `coded`: the distinct codes of `kind` (the codes table) the row lists in `column` for its locations'
 *   or postings' values; -1, none: the null group.
 * A job counts once in each group it has a value in.
 */
export type GroupSource =
  | { shape: 'one'; column: string; name?: (value: string) => string }
  | { shape: 'list'; column: string }
  | { shape: 'coded'; column: string; kind: string };

export const GROUPS: Record<GroupBy, GroupSource> = {
  employer: { shape: 'one', column: 'employer_name' },
  company_id: { shape: 'one', column: 'company_id' },
  work_arrangement: { shape: 'one', column: 'work_arrangement', name: (v) => `[NULL, 'remote', 'hybrid', 'in_person'][${v} + 1]` },
  currentness: { shape: 'one', column: 'currentness', name: (v) => `['current', 'uncertain', 'not_current'][${v} + 1]` },
  pay_band: { shape: 'one', column: 'pay_band' },
  soc_code: { shape: 'one', column: 'soc_code' },
  soc_major: { shape: 'one', column: 'soc_code', name: (v) => `left(${v}, 3) || '0000'` },
  skills: { shape: 'list', column: 'skills' },
  country: { shape: 'coded', column: 'country_codes', kind: 'country' },
  state: { shape: 'coded', column: 'subdivision_codes', kind: 'subdivision' },
  msa: { shape: 'coded', column: 'msa_codes', kind: 'msa' },
  employment_type: { shape: 'coded', column: 'employment_codes', kind: 'employment_type' },
  source_class: { shape: 'coded', column: 'class_codes', kind: 'source_class' },
};

/** A list column's values, one row each, with [NULL] for an empty list (the null group). */
export const listed = (column: string) => `unnest(CASE WHEN len(${column}) > 0 THEN ${column} ELSE [NULL] END)`;
