const ZONE_SUFFIX = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MS_PER_DAY = 86_400_000;

function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (!(digit >= 0 && digit <= 9)) {
      return -1;
    }
    value = value * 10 + digit;
  }
  return value;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

// NaN when the text has another shape; Infinity when it has this shape but names no real instant.
function parseIsoTimestamp(text: string): number {
  const length = text.length;
  if (
    length < 19 ||
    text.charCodeAt(4) !== 45 ||
    text.charCodeAt(7) !== 45 ||
    (text.charCodeAt(10) !== 84 && text.charCodeAt(10) !== 32) ||
    text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58
  ) {
    return NaN;
  }
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) {
    return NaN;
  }
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > DAYS_IN_MONTH[month - 1] + (leap ? 1 : 0) ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    return Infinity;
  }
  let at = 19;
  let millis = 0;
  if (at < length && text.charCodeAt(at) === 46) {
    at++;
    let scale = 100;
    const start = at;
    while (at < length) {
      const digit = text.charCodeAt(at) - 48;
      if (digit < 0 || digit > 9) {
        break;
      }
      millis += digit * scale;
      scale /= 10;
      at++;
    }
    if (at === start) {
      return NaN;
    }
    millis = Math.floor(millis);
  }
  let offsetMinutes = 0;
  if (at < length) {
    const sign = text.charCodeAt(at);
    if ((sign === 90 || sign === 122) && at + 1 === length) {
      at++;
    } else if (sign === 43 || sign === 45) {
      const offsetHours = digitsAt(text, at + 1, 2);
      let rest = at + 3;
      if (rest < length && text.charCodeAt(rest) === 58) {
        rest++;
      }
      const offsetMins = rest === length ? 0 : digitsAt(text, rest, 2);
      if (offsetHours < 0 || offsetMins < 0 || (rest !== length && rest + 2 !== length)) {
        return NaN;
      }
      offsetMinutes = (sign === 45 ? -1 : 1) * (offsetHours * 60 + offsetMins);
      at = length;
    }
  }
  if (at !== length) {
    return NaN;
  }
  const local = daysFromCivil(year, month, day) * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + millis;
  return local - offsetMinutes * 60_000;
}

// A zoneless timestamp is UTC, never the host's local time; unparseable values sort after every valid one.
export function parseTimestamp(value: string): number {
  if (typeof value !== 'string' || value.length === 0) {
    return Infinity;
  }
  const fast = parseIsoTimestamp(value);
  if (!Number.isNaN(fast)) {
    return fast;
  }
  const text = value.length > 10 && value.charCodeAt(10) === 32 ? value.slice(0, 10) + 'T' + value.slice(11) : value;
  const ms = Date.parse(ZONE_SUFFIX.test(text) || text.length <= 10 ? text : text + 'Z');
  return Number.isNaN(ms) ? Infinity : ms;
}

const ZONELESS_ISO = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}$/;

export function toZonelessIso(value: string): string {
  if (value.length === 23 && ZONELESS_ISO.test(value)) {
    return value;
  }
  const ms = parseTimestamp(value);
  if (ms === Infinity) {
    return value;
  }
  const iso = new Date(ms).toISOString();
  return iso.slice(0, iso.length - 1);
}
