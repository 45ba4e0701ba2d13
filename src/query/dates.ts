// Dates of the API: a calendar date (YYYY-MM-DD, UTC) or an RFC 3339 date-time with a zone.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|([+-])(\d{2}):(\d{2}))$/;

function validDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The instant of an RFC 3339 date-time with a zone, or undefined when the text is not one. */
export function parseDateTime(text: string): Date | undefined {
  // An unencoded "+" of a zone offset arrives as a space in a query string: read it as the "+" it was.
  const m = DATE_TIME.exec(text.replace(/ (\d{2}:\d{2})$/, '+$1'));
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (!validDay(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (m[9]) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const millis = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000);
}

/**
 * A filter bound: a plain date means the start of that UTC day for a lower bound and its end
 * (the last millisecond) for an upper bound; a date-time means itself.
 */
export function parseDateBound(text: string, edge: 'start' | 'end'): Date | undefined {
  const m = DATE.exec(text);
  if (!m) return parseDateTime(text);
  const [year, month, day] = m.slice(1, 4).map(Number) as [number, number, number];
  if (!validDay(year, month, day)) return undefined;
  const start = Date.UTC(year, month - 1, day);
  return new Date(edge === 'start' ? start : start + 86_400_000 - 1);
}

export function isDateOrDateTime(text: string): boolean {
  return parseDateBound(text, 'start') !== undefined;
}

export function isCalendarDate(text: string): boolean {
  return DATE.test(text) && parseDateBound(text, 'start') !== undefined;
}
