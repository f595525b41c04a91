// Ends an exhaustive `switch`: the compiler refuses a call site that can still be reached.
export function assertUnreachable(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${String(value)}`);
}

// `code` is from a catalogue (or a generic one); the rest is what that code adds (fields, limit, retry_after_seconds).
export interface ErrorBody {
  code: string;
  message: string;
  [key: string]: unknown;
}
