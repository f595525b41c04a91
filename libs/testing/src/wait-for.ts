// The condition answers "not yet" with null, undefined or false (or by throwing: the last error is kept for the
// timeout's message); any other value ends the wait and is returned.
export interface WaitForOptions {
  // default 60 000 ms
  timeout?: number;
  // default 100 ms
  interval?: number;
  what?: string;
}

type NotYet = null | undefined | false;

export async function waitFor<T>(
  condition: () => T | NotYet | Promise<T | NotYet>,
  options: WaitForOptions = {},
): Promise<T> {
  const { timeout = 60_000, interval = 100, what = 'a condition' } = options;
  const deadline = Date.now() + timeout;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value !== null && value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeout} ms waiting for ${what}${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}
