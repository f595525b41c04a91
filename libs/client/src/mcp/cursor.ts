import { ChargeFlowError } from '../charge-flow';

export function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

export function decodeCursor(cursor: string): number {
  const match = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new ChargeFlowError('invalid_cursor', 'cursor is not a next_cursor list_items answered');
  return Number(match[1]);
}
