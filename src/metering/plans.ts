// The plans of spec 8 and DESIGN.md 6: monthly records, monthly requests, request window and price.

export const PLAN_IDS = ['free', 'paid-5k', 'paid-25k', 'paid-100k', 'paid-250k', 'paid-500k'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export const BILLING_MODELS = ['records', 'requests'] as const;
export type BillingModel = (typeof BILLING_MODELS)[number];

export const SUBSCRIPTION_STATUSES = ['active', 'none', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export interface Plan {
  id: PlanId;
  paid: boolean;
  monthlyRecords: number;
  monthlyRequests: number;
  requestsPerMinute: number;
  priceUsd: number;
  /** Overage is billed per record at the plan's own per-record price, in micro-USD to stay exact. */
  overagePriceMicros: number | null;
}

function paid(id: PlanId, records: number, priceUsd: number): Plan {
  return {
    id,
    paid: true,
    monthlyRecords: records,
    monthlyRequests: records / 2,
    requestsPerMinute: 60,
    priceUsd,
    overagePriceMicros: Math.round((priceUsd * 1_000_000) / records),
  };
}

export const PLANS: Readonly<Record<PlanId, Plan>> = {
  free: {
    id: 'free',
    paid: false,
    monthlyRecords: 1000,
    monthlyRequests: 250,
    requestsPerMinute: 30,
    priceUsd: 0,
    overagePriceMicros: null,
  },
  'paid-5k': paid('paid-5k', 5_000, 10),
  'paid-25k': paid('paid-25k', 25_000, 45),
  'paid-100k': paid('paid-100k', 100_000, 150),
  'paid-250k': paid('paid-250k', 250_000, 300),
  'paid-500k': paid('paid-500k', 500_000, 500),
};

export function isPlanId(value: string): value is PlanId {
  return (PLAN_IDS as readonly string[]).includes(value);
}
