export const DISPLAY_NAME_MAX = 64;
export const DISPLAY_ID_MAX = 128;

// Cc (C0, DEL, C1) and the bidirectional controls that could reorder what an approver reads.
const UNSAFE = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c]/gu;

// Machine-chosen text shown to a person: controls stripped, capped by code points, never empty.
export function sanitizeForDisplay(text: string, max: number): string {
  const clean = Array.from(text.replace(UNSAFE, '').trim());
  const capped = clean.length > max ? `${clean.slice(0, max - 1).join('')}…` : clean.join('');
  return capped.length > 0 ? capped : '?';
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}
