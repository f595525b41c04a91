// `@Transform` helpers for query strings and environment variables; an empty string counts as absent.
interface TransformInput {
  value: unknown;
}

// A signed decimal integer; anything else becomes NaN so that @IsInt names the field.
export const toInt = ({ value }: TransformInput): number | undefined =>
  value === undefined || value === '' ? undefined : /^-?[0-9]+$/.test(String(value)) ? Number(value) : NaN;

// Digits only: a sign is refused as not an integer rather than reported against @Min.
export const toUnsignedInt = ({ value }: TransformInput): number | undefined =>
  value === undefined || value === '' ? undefined : /^[0-9]+$/.test(String(value)) ? Number(value) : NaN;

// Whatever Number() reads (environment variables accept 1e3 and 0x10).
export const toNumber = ({ value }: TransformInput): number | undefined =>
  value === undefined || value === '' ? undefined : Number(value);

export const toBool = ({ value }: TransformInput): boolean | undefined =>
  value === undefined || value === '' ? undefined : value === true || value === 'true' || value === '1';
