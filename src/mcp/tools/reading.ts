// The MCP tools that read what needs no request: read_file (the jobs a search saved) and search_docs.

import { object } from '../schemas.js';
import { fileURLToPath } from 'node:url';
import { excerpt } from '../docs-excerpt.js';
import { DocsIndex } from '../docs-index.js';
import type { Tool } from '../tool.js';
import { JOBS, WATERMARK } from './outputs.js';
import { PAGE } from './jobs.js';

export const readFileTool: Tool = {
  name: 'read_file',
  title: 'Read a saved file',
  description: 'Pages through a file search_jobs saved in this session (save_to_file). No requests: its jobs were charged when saved.',
  inputSchema: object(
    {
      file_id: { type: 'string', minLength: 1, maxLength: 100, description: 'The file_id search_jobs returned.' },
      offset: {
        type: 'integer',
        minimum: 0,
        default: 0,
        description: 'Jobs to skip, e.g. 0, then next_offset.',
      },
      limit: {
        type: 'integer',
        minimum: PAGE.min,
        maximum: PAGE.max,
        default: PAGE.default,
        description: 'Jobs to return, e.g. 10.',
      },
    },
    ['file_id'],
  ),
  outputSchema: object(
    {
      file_id: { type: 'string' },
      jobs: JOBS,
      offset: { type: 'integer', minimum: 0 },
      next_offset: { type: ['integer', 'null'], description: 'Pass as offset for the next page; null at the end of the file.' },
      total: { type: 'integer', minimum: 0, description: 'Jobs in the file.' },
      snapshot_watermark: WATERMARK(),
    },
    ['file_id', 'jobs', 'offset', 'next_offset', 'total', 'snapshot_watermark'],
  ),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: async (args, { session }) => {
    const offset = (args.offset as number | undefined) ?? 0;
    const limit = (args.limit as number | undefined) ?? PAGE.default;
    const { file, lines } = await session.read(args.file_id as string, offset, limit);
    const end = offset + lines.length;
    return {
      file_id: file.file_id,
      jobs: lines.map((line) => JSON.parse(line) as unknown),
      offset,
      next_offset: end < file.jobs ? end : null,
      total: file.jobs,
      snapshot_watermark: file.snapshot_watermark,
    };
  },
};

/** The project's docs are part of the code: indexed once per process, on the first search. */
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
let index: Promise<DocsIndex> | undefined;
const docs = () =>
  (index ??= DocsIndex.load(ROOT).catch((error: unknown) => {
    index = undefined;
    throw error;
  }));

/** An answer's passages are cut to excerpts of this many characters around the query's words. */
export const EXCERPT_CHARS = 600;

export const searchDocsTool: Tool = {
  name: 'search_docs',
  title: 'Search the documentation',
  description:
    'Answers a question about this API from its guides and reference: the best passages, as excerpts ("…" marks cuts); ' +
    'send a title back to read that passage whole. Uses no requests.',
  inputSchema: object(
    {
      query: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        description: 'A question in plain words, e.g. "what does a 429 mean".',
      },
      limit: { type: 'integer', minimum: 1, maximum: 10, default: 3, description: 'Passages, e.g. 3.' },
      title: {
        type: 'string',
        minLength: 1,
        maxLength: 300,
        description: 'A title from an earlier answer, e.g. "Usage, limits and billing › Response headers": that passage whole.',
      },
    },
    ['query'],
  ),
  outputSchema: object(
    {
      results: {
        type: 'array',
        items: object(
          {
            source: { type: 'string', description: 'The guide or contract it comes from, e.g. docs/usage-and-limits.md.' },
            title: { type: 'string', description: 'Its headings; pass it as title to read the passage whole.' },
            text: { type: 'string' },
            truncated: { type: 'boolean', description: 'true when text is an excerpt of a longer passage.' },
            score: { type: 'number' },
          },
          ['source', 'title', 'text', 'truncated', 'score'],
        ),
      },
    },
    ['results'],
  ),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: async (args) => {
    const query = args.query as string;
    const limit = (args.limit as number | undefined) ?? 3;
    const title = args.title as string | undefined;
    const index = await docs();
    if (title !== undefined) {
      return { results: index.passage(title, query, limit).map((hit) => ({ ...hit, truncated: false })) };
    }
    return {
      results: index.search(query, limit).map(({ source, title: heading, text, score }) => {
        const cut = excerpt(text, query, EXCERPT_CHARS);
        return { source, title: heading, text: cut, truncated: cut !== text, score };
      }),
    };
  },
};
