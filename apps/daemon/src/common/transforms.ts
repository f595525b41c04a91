import { INT4_MAX, INT4_MIN } from './input-limits';

// `@Transform` helpers for query strings and environment variables; an empty string counts as absent.
interface TransformInput {
  value: unknown;
}

// Integers address PostgreSQL integer columns: past their range, the value is refused like any non-integer.
const inInt4 = (n: number): number => (n >= INT4_MIN && n <= INT4_MAX ? n : NaN);

// Out of range or not an integer → NaN, so @IsInt names the field.
export const toInt = ({ value }: TransformInput): number | undefined =>
  value === undefined || value === '' ? undefined : /^-?[0-9]+$/.test(String(value)) ? inInt4(Number(value)) : NaN;

// Digits only: a sign is refused as not an integer rather than reported against @Min.
export const toUnsignedInt = ({ value }: TransformInput): number | undefined =>
  value === undefined || value === '' ? undefined : /^[0-9]+$/.test(String(value)) ? inInt4(Number(value)) : NaN;

// Whatever Number() reads (environment variables accept 1e3 and 0x10).
export const toNumber = ({ value }: TransformInput): number | undefined =>
  value === undefined || value === '' ? undefined : Number(value);

export const toBool = ({ value }: TransformInput): boolean | undefined =>
  value === undefined || value === '' ? undefined : value === true || value === 'true' || value === '1';
