// The company registry over time: acquisitions at each release after the first, and the registry as of any day.

import { releaseDays } from './calendar.js';
import type { Companies, Company } from './companies.js';
import { RATES, STREAM } from './options.js';
import { Rng, Weighted } from './random.js';

export interface Merger {
  /** Release day the absorbed company first shows as merged. */
  day: number;
  into: number;
}

export interface RegistryRecord {
  company_id: string;
  name: string;
  country: string;
  status: 'active' | 'inactive';
  domain: string | null;
  industry: string;
  employee_range: string;
  merged_into: string | null;
}

export class Registry {
  /** Company index → its acquisition, when it was absorbed within the generated days. */
  readonly mergers = new Map<number, Merger>();

  constructor(
    private readonly companies: Companies,
    seed: number,
    days: number,
  ) {
    for (const day of releaseDays(days).slice(1)) this.acquire(new Rng(seed, STREAM.registry, day), day);
  }

  private acquire(rng: Rng, day: number): void {
    const active = this.companies.list.filter(
      (c) => c.registered && !c.dissolved && c.since < day && !this.mergers.has(c.index) && !c.industry.government,
    );
    const acquirers = new Weighted(active.map((c) => c.weight));
    const count = Math.max(1, Math.round(active.length * RATES.mergesPerRelease));
    const absorbedNow = new Set<number>();
    const buyers = new Set<number>();
    for (let k = 0; k < count * 3 && absorbedNow.size < count; k += 1) {
      const target = active[rng.int(active.length)]!;
      const buyer = active[acquirers.draw(rng)]!;
      if (
        target === buyer ||
        absorbedNow.has(target.index) ||
        buyers.has(target.index) ||
        absorbedNow.has(buyer.index) ||
        buyer.weight < target.weight
      )
        continue;
      absorbedNow.add(target.index);
      buyers.add(buyer.index);
      this.mergers.set(target.index, { day, into: buyer.index });
    }
  }

  /** The company an employer's records point to on `day`: itself, or the company it was merged into. */
  resolve(index: number, day: number): Company {
    let company = this.companies.list[index]!;
    for (let merger = this.mergers.get(company.index); merger && merger.day <= day; merger = this.mergers.get(company.index)) {
      company = this.companies.list[merger.into]!;
    }
    return company;
  }

  mergedOn(index: number, day: number): Merger | undefined {
    const merger = this.mergers.get(index);
    return merger && merger.day <= day ? merger : undefined;
  }

  /** Every registered company that exists on `day`, in a stable order. */
  *records(day: number): Generator<RegistryRecord> {
    for (const company of this.companies.list) {
      if (!company.registered || company.since > day) continue;
      const merger = this.mergedOn(company.index, day);
      yield {
        company_id: company.id,
        name: company.name.legal,
        country: company.country,
        status: merger || company.dissolved ? 'inactive' : 'active',
        domain: company.domain,
        industry: company.industry.name,
        employee_range: company.employeeRange,
        merged_into: merger ? this.companies.list[merger.into]!.id : null,
      };
    }
  }
}
