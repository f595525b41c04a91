// Ends an exhaustive `switch`: the compiler refuses a call site that can still be reached.
export function assertUnreachable(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${String(value)}`);
}
