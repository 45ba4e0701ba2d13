// The filter table (src/jobs/filter-table.ts) against openapi.yaml: every filter is a parameter of
// GET /v1/jobs and a property of JobFilters and nothing else is; its kind of value agrees; the es_dsl
// field table of the docs is the one the translator reads (src/jobs/es-dsl-fields.ts).

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { bool, FILTER_INPUTS, FILTER_NAMES, FILTERS, type Filter } from '../../src/jobs/filter-table.js';
import { LIST_OPTIONS } from '../../src/jobs/filters.js';
import { acceptedClauses, CLAUSES, ES_DSL_FIELDS } from '../../src/jobs/es-dsl-fields.js';
import { contract, deref, OPENAPI_FILE, operationOf, type Node } from '../../src/shared/contract.js';

const jobFilters = () => deref(((contract().components as Node).schemas as Node).JobFilters).properties as Node;

describe('the filter table and openapi.yaml', () => {
  it('has every query parameter of GET /v1/jobs but the listing options, and no other', () => {
    const parameters = [...operationOf('GET', '/v1/jobs')!.parameters.keys()].filter(
      (name) => !(LIST_OPTIONS as readonly string[]).includes(name),
    );
    expect([...FILTER_INPUTS].sort()).to.deep.equal(parameters.sort());
  });

  it('has every property of JobFilters (the filters of POST /v1/jobs/search), and no other', () => {
    expect([...FILTER_INPUTS].sort()).to.deep.equal(Object.keys(jobFilters()).sort());
  });

  it('reads a JSON boolean exactly where the contract says boolean', () => {
    for (const name of FILTER_NAMES) {
      const filter = FILTERS[name] as Filter<unknown>;
      const schema = deref(jobFilters()[name]);
      expect(schema.type === 'boolean', name).to.equal(filter.read === bool);
    }
  });

  it('documents each es_dsl field with the clauses it accepts and the filters it becomes', () => {
    // The table under **Fields.** in POST /v1/jobs/search/es_dsl: | `field`, ... | `clause`, ... | `filter` ... |
    const text = readFileSync(OPENAPI_FILE, 'utf8');
    const start = text.indexOf('| Field | Clauses | Filter |');
    expect(start, 'the es_dsl field table').to.be.above(0);
    const rows = text
      .slice(start)
      .split('\n')
      .slice(2)
      .map((line) => line.trim())
      .filter((line, i, all) => line.startsWith('|') && all.slice(0, i).every((l) => l.startsWith('|')))
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => Array.from(cell.matchAll(/`([^`]+)`/g), (m) => m[1]!)),
      );
    const documented = new Set(rows.flatMap(([fields]) => fields!));
    expect([...documented].sort()).to.deep.equal(Object.keys(ES_DSL_FIELDS).sort());

    const filterNames = new Set<string>(FILTER_NAMES);
    for (const [name, field] of Object.entries(ES_DSL_FIELDS)) {
      const its = rows.filter(([fields]) => fields!.includes(name));
      const clauses = new Set(its.flatMap(([, c]) => c!.filter((word) => (CLAUSES as readonly string[]).includes(word))));
      expect([...clauses].sort(), `the clauses of ${name}`).to.deep.equal([...acceptedClauses(field)].sort());
      const filters = new Set(its.flatMap(([, , f]) => f!.filter((word) => filterNames.has(word))));
      const becomes = [field.filter, field.phrase, field.since, field.until, field.exists].filter((f) => f !== undefined);
      // A row naming several fields names their filters together; q is what title and description become together.
      const alone = its.every(([fields]) => fields!.length === 1);
      if (alone) expect([...filters], `the filters of ${name}`).to.have.members(becomes);
      else expect([...filters], `the filters of ${name}`).to.include.members(becomes);
    }
  });
});
