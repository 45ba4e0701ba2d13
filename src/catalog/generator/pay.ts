// Pay of an opening (currency, range and basis by occupation, level, city and country) and how each source spells it.

import { countryRef, type GazetteerCity } from '../reference/gazetteer.js';
import type { Level, Occupation } from '../reference/occupations.js';
import type { SourceRef } from '../reference/sources.js';
import type { Rng } from './random.js';

export type Basis = 'year' | 'month' | 'week' | 'day' | 'hour';

export interface Pay {
  currency: string;
  min: number | null;
  max: number | null;
  basis: Basis;
  /** The employer publishes it. */
  disclosed: boolean;
}

export interface RawPay {
  currency: string;
  min: number | null;
  max: number | null;
  interval: string | null;
}

const TRANSPARENT_STATES = new Set(['CA', 'NY', 'WA', 'CO', 'IL', 'MD', 'NJ', 'MA', 'MN', 'VT', 'HI', 'DC']);
const HOURLY_COUNTRIES = new Set(['US', 'CA', 'GB', 'AU']);
const STEP: Readonly<Record<Basis, number>> = { year: 1000, month: 50, week: 10, day: 5, hour: 0.25 };

function round(value: number, basis: Basis, currency: string): number {
  const step =
    currency === 'INR' && basis === 'year'
      ? 10000
      : currency === 'INR' && basis === 'month'
        ? 1000
        : STEP[basis] * (basis === 'year' && value < 60000 ? 0.5 : 1);
  return Math.round(Math.round(value / step) * step * 100) / 100;
}

function disclosure(city: GazetteerCity | undefined, country: string): number {
  if (country === 'US') return city && TRANSPARENT_STATES.has(city.state) ? 0.9 : 0.62;
  if (country === 'GB' || country === 'CA') return 0.65;
  return 0.45;
}

export function payOf(rng: Rng, occupation: Occupation, level: Level, city: GazetteerCity | undefined, country: string): Pay {
  const ref = countryRef(country);
  let basis: Basis = occupation.basis;
  let amount = occupation.pay * level.pay * (city?.cost ?? 1) * ref.payFactor;
  if (basis === 'hour' && !HOURLY_COUNTRIES.has(country)) {
    basis = 'month';
    amount *= 173;
  } else if (basis === 'year' && (country === 'BR' || (country === 'IN' && rng.chance(0.4)) || (country === 'DE' && rng.chance(0.2)))) {
    basis = 'month';
    amount /= 12;
  } else if (basis === 'year' && country === 'GB' && rng.chance(0.06)) {
    basis = 'day';
    amount /= 220;
  }
  const low = round(amount * (0.82 + rng.float() * 0.12), basis, ref.currency);
  const high = round(amount * (1.05 + rng.float() * 0.22), basis, ref.currency);
  const open = rng.float();
  return {
    currency: ref.currency,
    min: open < 0.03 ? null : low,
    max: open > 0.9 ? null : Math.max(high, low),
    basis,
    disclosed: rng.chance(disclosure(city, country)),
  };
}

export function raisedPay(pay: Pay): Pay {
  const bump = (v: number | null) => (v === null ? null : round(v * 1.06, pay.basis, pay.currency));
  return { ...pay, min: bump(pay.min), max: bump(pay.max) };
}

const SPELLINGS: Readonly<Record<SourceRef['spelling'], Readonly<Record<Basis, readonly string[]>>>> = {
  enum: { year: ['YEAR'], month: ['MONTH'], week: ['WEEK'], day: ['DAY'], hour: ['HOUR'] },
  label: {
    year: ['yearly', 'Yearly', 'per year', 'annual'],
    month: ['monthly', 'per month'],
    week: ['weekly', 'per week'],
    day: ['daily', 'per day'],
    hour: ['hourly', 'Hourly', 'per hour'],
  },
  loose: {
    year: ['annual', 'Annually', 'per year', 'yr', 'year', 'YEARLY'],
    month: ['month', 'per month', 'Monthly'],
    week: ['week', 'Weekly', '/week'],
    day: ['day', 'per day', 'Daily'],
    hour: ['hour', 'hr', 'per hour', '/hr', 'HOURLY'],
  },
};

/** The pay a copy publishes, or null: undisclosed pay, dropped by the source, or an interval the source leaves unknown. */
export function rawPay(rng: Rng, pay: Pay, source: SourceRef): RawPay | null {
  if (!pay.disclosed || rng.chance(source.dropPay)) return null;
  const unknown = rng.float();
  const interval = unknown < 0.02 ? null : unknown < 0.03 ? 'other' : rng.pick(SPELLINGS[source.spelling][pay.basis]);
  return { currency: pay.currency, min: pay.min, max: pay.max, interval };
}

const SYMBOL: Readonly<Record<string, string>> = { USD: '$', CAD: 'CA$', GBP: '£', EUR: '€', INR: '₹', AUD: 'A$', BRL: 'R$', CHF: 'CHF ' };
const PER: Readonly<Record<Basis, string>> = { year: 'per year', month: 'per month', week: 'per week', day: 'per day', hour: 'per hour' };

function money(value: number, currency: string): string {
  const [whole, cents] = value.toFixed(2).split('.') as [string, string];
  const text = `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${cents === '00' ? '' : `.${cents}`}`;
  return `${SYMBOL[currency] ?? `${currency} `}${text}`;
}

/** "$120,000 - $150,000 per year", as the description states it. */
export function payText(pay: Pay): string {
  const range =
    pay.min !== null && pay.max !== null
      ? `${money(pay.min, pay.currency)} - ${money(pay.max, pay.currency)}`
      : pay.min !== null
        ? `from ${money(pay.min, pay.currency)}`
        : `up to ${money(pay.max!, pay.currency)}`;
  return `${range} ${PER[pay.basis]}`;
}
