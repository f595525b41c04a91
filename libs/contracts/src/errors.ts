// Ends an exhaustive `switch`: the compiler refuses a call site that can still be reached.
export function assertUnreachable(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${String(value)}`);
}

// Every refusal's body: the code of a catalogue (or a generic one), its message, and what that code adds (fields,
// limit, retry_after_seconds, …). The daemon's exception filter writes it; the client reads it.
export interface ErrorBody {
  code: string;
  message: string;
  [key: string]: unknown;
}
