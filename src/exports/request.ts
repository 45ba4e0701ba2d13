// The body of POST /v1/jobs/exports (spec 4.8): the filters of POST /v1/jobs/search with their
// validation, the shape options, sort, max_records and format. limit and cursor are refused.

import { invalidRequest } from '../errors.js';
import { LIST_OPTIONS, readFilters, readListOptions, type JobFilters, type ListOptions } from '../jobs/filters.js';

export const MAX_EXPORT_RECORDS = 100_000;
const EXPORT_OPTIONS = [...LIST_OPTIONS, 'max_records', 'format'];

export interface ExportRequest {
  filters: JobFilters;
  fields: ListOptions['fields'];
  include: ListOptions['include'];
  sort: ListOptions['sort'];
  maxRecords: number;
  format: 'jsonl' | 'parquet';
}

export function readExportRequest(body: unknown): ExportRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalidRequest('The body must be a JSON object of filters and export options.');
  const input = body as Record<string, unknown>;
  for (const name of ['limit', 'cursor'])
    if (input[name] !== undefined) throw invalidRequest(`${name} is not accepted: an export is not paged (use max_records to cap it).`);
  const filters = readFilters(Object.fromEntries(Object.entries(input).filter(([k]) => !EXPORT_OPTIONS.includes(k))), 'body');
  const options = readListOptions(
    { fields: input.fields, include: input.include, description_format: input.description_format, sort: input.sort },
    filters,
    'body',
  );
  if (options.descriptionFormat === 'html')
    throw invalidRequest('description_format=html is not available: HTML descriptions are not published; use text.');
  const maxRecords = input.max_records ?? MAX_EXPORT_RECORDS;
  if (typeof maxRecords !== 'number' || !Number.isInteger(maxRecords) || maxRecords < 1 || maxRecords > MAX_EXPORT_RECORDS) {
    throw invalidRequest(`max_records must be a whole number from 1 to ${MAX_EXPORT_RECORDS}.`);
  }
  const format = input.format ?? 'jsonl';
  if (format !== 'jsonl' && format !== 'parquet') throw invalidRequest('format must be jsonl or parquet.');
  if (format === 'parquet' && (options.include.length > 0 || options.fields?.includes('company'))) {
    throw invalidRequest(
      'include (and the company field) are available with format jsonl only; a Parquet export holds the jobs and their postings.',
    );
  }
  return { filters, fields: options.fields, include: options.include, sort: options.sort, maxRecords, format };
}

/** The request as the export record shows it (and the runner reads it back). */
export function normalised(r: ExportRequest): Record<string, unknown> {
  return { ...r.filters, fields: r.fields, include: r.include, sort: r.sort, max_records: r.maxRecords, format: r.format };
}

export function fromNormalised(stored: Record<string, unknown>): ExportRequest {
  const { fields, include, sort, max_records: maxRecords, format, ...filters } = stored;
  return {
    filters: filters as unknown as JobFilters,
    fields: fields as ExportRequest['fields'],
    include: include as ExportRequest['include'],
    sort: sort as ExportRequest['sort'],
    maxRecords: maxRecords as number,
    format: format as ExportRequest['format'],
  };
}
