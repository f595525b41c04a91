// ISO 8601 UTC with milliseconds, as Date.toISOString writes it, so an export re-imports to the identical text.
export function isoUtc(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

// TypeORM answers UPDATE and DELETE with [rows, rowCount]; other statements with the rows.
export function affected(result: unknown): { rows: unknown[]; count: number } {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return { rows: result[0] as unknown[], count: result[1] };
  }
  const rows = Array.isArray(result) ? result : [];
  return { rows, count: rows.length };
}
