import { ValidationError, ValidationPipe } from '@nestjs/common';

import { DomainError, GENERIC_ERROR_CODES } from './domain-error';

function flatten(errors: ValidationError[], prefix = ''): { field: string; problems: string[] }[] {
  return errors.flatMap((error) => {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const own = error.constraints ? [{ field, problems: Object.values(error.constraints) }] : [];
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

// A 400 that names every failed field; values are never echoed back.
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const fields = flatten(errors);
      return new DomainError(
        GENERIC_ERROR_CODES.validationFailed,
        fields.map((f) => `${f.field}: ${f.problems.join(', ')}`).join('; ') || 'invalid request',
        400,
        { fields },
      );
    },
  });
}
