// A file of its own so the dialogs of overlays.ts and triage-overlays.ts share it without importing each other.
export interface OverlayContent {
  title: string;
  lines: string[];
  width: number;
  // the help: the last first line it can scroll to
  scrollMax?: number;
  // the dialog's buttons: their row in `lines` and cells [start, end) (mouse clicks)
  buttons?: { row: number; no: [number, number]; yes: [number, number] };
}
