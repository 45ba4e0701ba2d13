// Excerpts of the passages search_docs answers: at most so many characters of a passage, around the
// words of the query (and their synonyms: docs-index.ts queryTerms).

import { lexemes } from '../search/analyze.js';
import { queryTerms } from './docs-index.js';

/** Words as the parser sees them closely enough to find a query's lexemes in a text, with their offsets. */
const WORD = /[\p{L}\p{N}_][\p{L}\p{N}_'’.-]*[\p{L}\p{N}_]|[\p{L}\p{N}_]/gu;

/**
 * At most `max` characters of `text` around the words of the query: the window holding the most distinct
 * query words (then the most of them, then the earliest), widened back to the start of its line when that
 * fits, cut between words, with "…" where text was left out. A text of at most `max` characters is whole.
 */
export function excerpt(text: string, query: string, max: number): string {
  if (text.length <= max) return text;
  const terms = queryTerms(query);
  const hits: { at: number; end: number; term: string; weight: number }[] = [];
  for (const match of text.matchAll(WORD)) {
    for (const term of lexemes(match[0])) {
      const weight = terms.get(term);
      if (weight !== undefined) hits.push({ at: match.index, end: match.index + match[0].length, term, weight });
    }
  }
  const room = max - 2; // an ellipsis at either end
  let best = { start: 0, distinct: -1, total: -1 };
  for (const [i, first] of hits.entries()) {
    const seen = new Map<string, number>();
    let total = 0;
    for (const hit of hits.slice(i)) {
      if (hit.end - first.at > room) break;
      seen.set(hit.term, hit.weight);
      total += hit.weight;
    }
    const distinct = [...seen.values()].reduce((sum, w) => sum + w, 0);
    if (distinct > best.distinct || (distinct === best.distinct && total > best.total)) best = { start: first.at, distinct, total };
  }
  let start = best.start;
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  if (start - lineStart < room / 3) start = lineStart;
  else start = text.lastIndexOf(' ', start - 1) + 1;
  // Fill the window with text before the start when the passage ends too soon.
  start = Math.max(0, Math.min(start, text.length - room));
  if (start > 0 && !/\s/.test(text[start - 1]!)) {
    const space = text.indexOf(' ', start);
    start = space === -1 ? start : space + 1;
  }
  let end = Math.min(text.length, start + room);
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > start) end = space;
  }
  const body = text.slice(start, end).trim();
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`;
}
