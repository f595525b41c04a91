// A file of its own so the dialogs of overlays.ts and triage-overlays.ts share it without importing each other.
export interface OverlayContent {
  title: string;
  lines: string[];
  width: number;
  scrollMax?: number;
  buttons?: { row: number; no: [number, number]; yes: [number, number] };
}
