import { DomainError } from './domain-error';

// The DomainError a service call was refused with, for a spec to assert its code and status; a call that succeeds
// or fails with anything else fails the spec.
export async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}
