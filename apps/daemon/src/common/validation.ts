import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';

import { validationFailed } from './domain-error';
import { int4Problem } from './input-limits';

function flatten(errors: ValidationError[], prefix = ''): { field: string; problems: string[] }[] {
  return errors.flatMap((error) => {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const own = error.constraints ? [{ field, problems: Object.values(error.constraints) }] : [];
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

// Global pipes run before a parameter's own pipe (ParseIntPipe): a numeric path or query parameter is checked
// against the integer column it addresses here, once for every route.
class EdgeValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if ((metadata.type === 'param' || metadata.type === 'query') && metadata.metatype === Number) {
      const problem = typeof value === 'string' ? int4Problem(value) : null;
      if (problem) throw validationFailed([{ field: metadata.data ?? metadata.type, problems: [problem] }]);
    }
    return super.transform(value, metadata);
  }
}

// A 400 that names every failed field; values are never echoed back.
export function createValidationPipe(): ValidationPipe {
  return new EdgeValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => validationFailed(flatten(errors)),
  });
}
