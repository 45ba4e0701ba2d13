// The fixed request mix: one scenario per route class that the build serves.

import type { BenchRequest } from './measure.js';
import type { BenchService } from './service.js';

export interface Scenario {
  name: string;
  request: BenchRequest;
}

export function scenarios(service: BenchService): Scenario[] {
  const auth = { authorization: `Bearer ${service.key}` };
  return [
    { name: 'health (no key)', request: { url: `${service.url}/healthz`, method: 'GET' } },
    {
      name: 'overage PUT (key + validation + store transaction)',
      request: {
        url: `${service.url}/v1/account/overage`,
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ enabled: true, monthlyLimitUsd: 250 }),
      },
    },
  ];
}
