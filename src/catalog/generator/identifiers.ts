// Source posting ids (unique per source, shaped like each vendor's) and the posting and application URLs built from them.

import type { SourceRef } from '../reference/sources.js';
import { hashInts, hashString, mix32 } from './random.js';

/** A number unique to (opening, slot, repost generation) within 32 bits. */
export function postingKey(index: number, slot: number, generation: number): number {
  return (index * 8 + (generation > 0 ? 7 : slot)) >>> 0;
}

const hex = (n: number, width = 8) => (n >>> 0).toString(16).padStart(width, '0');

/** Distinct keys give distinct ids: the first component is a bijection of the key. */
export function sourcePostingId(seed: number, source: SourceRef, key: number): string {
  const salt = hashInts(seed, hashString(source.name));
  const unique = mix32((key ^ salt) >>> 0);
  const extra = hashInts(salt, key, 1);
  switch (source.id) {
    case 'uuid': {
      const tail = hex(hashInts(salt, key, 2)) + hex(hashInts(salt, key, 3));
      return `${hex(unique)}-${hex(extra).slice(0, 4)}-4${hex(extra).slice(5, 8)}-${'89ab'[extra & 3]}${tail.slice(1, 4)}-${tail.slice(4, 16)}`;
    }
    case 'req':
      return `JR${String(unique).padStart(10, '0')}`;
    case 'hex':
      return hex(unique) + hex(extra);
    case 'alnum':
      return unique.toString(36).padStart(7, '0') + (extra % 1296).toString(36).padStart(2, '0');
    case 'slug':
      return unique.toString(36);
    case 'sha1':
      return hex(unique) + hex(extra) + hex(hashInts(salt, key, 2)) + hex(hashInts(salt, key, 3)) + hex(hashInts(salt, key, 4));
    case 'compound':
      return source.name === 'icims' ? `${2020 + (extra % 7)}-${unique}` : `10000-${unique}-S`;
    default:
      return String(unique);
  }
}

export interface UrlParts {
  board: string;
  id: string;
  slug: string;
  domain: string | null;
  city: string;
}

const compiled = new Map<string, string[]>();

/** Fills {url} {board} {id} {slug} {domain} {city}; templates are split once, at their placeholders. */
export function fillUrl(template: string, parts: UrlParts, url = ''): string {
  let pieces = compiled.get(template);
  if (!pieces) {
    pieces = template.split(/(\{[a-z]+\})/);
    compiled.set(template, pieces);
  }
  let out = '';
  for (const piece of pieces) {
    if (piece.charCodeAt(0) !== 123) out += piece;
    else if (piece === '{url}') out += url;
    else if (piece === '{domain}') out += parts.domain ?? 'example.com';
    else out += parts[piece.slice(1, -1) as 'board' | 'id' | 'slug' | 'city'];
  }
  return out;
}
