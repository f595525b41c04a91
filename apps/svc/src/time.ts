export function relativeTime(value: string | null | undefined, now = Date.now()): string {
  if (value === null || value === undefined || value === '') return '';
  const at = Date.parse(/(Z|[+-]\d{2}:?\d{2})$/.test(value) ? value : `${value}Z`);
  if (Number.isNaN(at)) return value;
  const diff = at - now;
  const s = Math.round(Math.abs(diff) / 1000);
  if (s < 5) return 'now';
  const span =
    s < 60
      ? `${s}s`
      : s < 3600
        ? `${Math.floor(s / 60)} min`
        : s < 86_400
          ? `${Math.floor(s / 3600)}h`
          : s < 86_400 * 60
            ? `${Math.floor(s / 86_400)}d`
            : new Date(at).toISOString().slice(0, 10);
  if (span.length === 10) return span; // far away: the date itself
  return diff < 0 ? `${span} ago` : `in ${span}`;
}
