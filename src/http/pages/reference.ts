// The contract as the reference (/docs) shows it: openapi.yaml with a code sample for every operation
// and the guides of docs/ written for API users, each a section of its own (a Redoc trait tag).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { contract, type Node } from '../../shared/contract.js';
import { GUIDES } from '../../shared/guides.js';
import { codeSamples } from './code-samples.js';

const DOCS = fileURLToPath(new URL('../../../docs/', import.meta.url));
export const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** A guide as a section: its first heading names it, the rest is its text. */
function guideTag(file: string): Node {
  const text = readFileSync(`${DOCS}${file}`, 'utf8');
  const [first, ...rest] = text.split('\n');
  return { name: `Guide: ${first!.replace(/^#\s*/, '')}`, 'x-traitTag': true, description: rest.join('\n').trim() };
}

/** The reference's document, for a server reached at `base` (the samples call it). */
export function referenceDocument(base: string): Node {
  const spec = contract();
  spec.servers = [{ url: base, description: 'This server.' }];
  for (const [template, item] of Object.entries(spec.paths as Record<string, Node>)) {
    for (const method of METHODS.filter((m) => item[m] !== undefined)) {
      const operation = item[method] as Node;
      operation['x-codeSamples'] = codeSamples(base, method, template, operation);
    }
  }
  const guides = GUIDES.map(guideTag);
  const tags = (spec.tags ?? []) as Node[];
  spec.tags = [...guides, ...tags];
  spec['x-tagGroups'] = [
    { name: 'Guides', tags: guides.map((g) => g.name) },
    { name: 'API', tags: tags.map((t) => t.name) },
  ];
  return spec;
}
