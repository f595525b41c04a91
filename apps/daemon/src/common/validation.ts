import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import {
  ClassConstructor,
  ClassTransformOptions,
  instanceToPlain,
  plainToInstance,
  TransformationType,
} from 'class-transformer';
import type * as TransformerStorage from 'class-transformer/types/storage';
import { getMetadataStorage } from 'class-validator';

import { DomainError, FieldProblems, GenericErrorCode, validationFailed } from './domain-error';
import { int4Problem } from './input-limits';

const MAX_NAMED_UNKNOWN = 20;

const declaredKeys = new WeakMap<object, ReadonlySet<string>>();

function declaredKeysOf(metatype: new (...args: unknown[]) => unknown): ReadonlySet<string> {
  let keys = declaredKeys.get(metatype);
  if (!keys) {
    const metadatas = getMetadataStorage().getTargetValidationMetadatas(metatype, '', false, false);
    keys = new Set(metadatas.map((m) => m.propertyName));
    declaredKeys.set(metatype, keys);
  }
  return keys;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

// class-transformer's own registry of @Type/@Transform/@Expose/@Exclude (not exported from its index).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as typeof TransformerStorage;

const transformsProperty = (metatype: ClassConstructor<unknown>, key: string): boolean =>
  defaultMetadataStorage.findTypeMetadata(metatype, key) !== undefined ||
  defaultMetadataStorage.findTransformMetadatas(metatype, key, TransformationType.PLAIN_TO_CLASS).length > 0 ||
  defaultMetadataStorage.findExposeMetadata(metatype, key) !== undefined ||
  defaultMetadataStorage.findExcludeMetadata(metatype, key) !== undefined;

// class-transformer dedupes each object's keys with indexOf (quadratic): a nested value under a property it has
// nothing to do for (no @Type/@Transform/@Expose/@Exclude) is passed through as parsed JSON.
export function plainToInstanceShallow<T>(
  metatype: ClassConstructor<T>,
  plain: unknown,
  options?: ClassTransformOptions,
): T | T[] {
  if (!isPlainObject(plain)) return plainToInstance(metatype, plain, options) as T | T[];
  const kept: [string, unknown][] = [];
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(plain)) {
    const value = plain[key];
    if (typeof value === 'object' && value !== null && !transformsProperty(metatype, key)) kept.push([key, value]);
    else rest[key] = value;
  }
  const instance = plainToInstance(metatype, rest, options) as Record<string, unknown>;
  for (const [key, value] of kept) instance[key] = value;
  return instance as T;
}

const TRANSFORMER = { plainToInstance: plainToInstanceShallow, classToPlain: instanceToPlain };

function flatten(errors: ValidationError[], prefix = ''): { field: string; problems: string[] }[] {
  return errors.flatMap((error) => {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const own = error.constraints ? [{ field, problems: Object.values(error.constraints) }] : [];
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

// Global pipes run before a parameter's own pipe (ParseIntPipe): numeric params are range-checked here.
class EdgeValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if ((metadata.type === 'param' || metadata.type === 'query') && metadata.metatype === Number) {
      const problem = typeof value === 'string' ? int4Problem(value) : null;
      if (problem) throw validationFailed([{ field: metadata.data ?? metadata.type, problems: [problem] }]);
    }
    const unknown = this.unknownKeys(value, metadata);
    if (unknown.length === 0) return super.transform(value, metadata);
    return this.refuseUnknown(value as Record<string, unknown>, unknown, metadata);
  }

  // Before class-transformer: its key dedupe is quadratic, so unknown keys are found here with a set.
  private unknownKeys(value: unknown, metadata: ArgumentMetadata): string[] {
    if (metadata.type !== 'body' && metadata.type !== 'query') return [];
    const metatype = metadata.metatype;
    if (!metatype || !this.toValidate(metadata) || !isPlainObject(value)) return [];
    const declared = declaredKeysOf(metatype as new (...args: unknown[]) => unknown);
    if (declared.size === 0) return [];
    return Object.keys(value).filter((key) => !declared.has(key));
  }

  private async refuseUnknown(
    value: Record<string, unknown>,
    unknown: string[],
    metadata: ArgumentMetadata,
  ): Promise<never> {
    const fields: FieldProblems[] = unknown
      .slice(0, MAX_NAMED_UNKNOWN)
      .map((key) => ({ field: key, problems: [`property ${key} should not exist`] }));
    if (unknown.length > MAX_NAMED_UNKNOWN) {
      fields.push({ field: '…', problems: [`${unknown.length - MAX_NAMED_UNKNOWN} more unknown properties`] });
    }
    const unknownSet = new Set(unknown);
    const known = Object.fromEntries(Object.entries(value).filter(([key]) => !unknownSet.has(key)));
    try {
      await super.transform(known, metadata);
    } catch (err) {
      if (!(err instanceof DomainError) || err.code !== GenericErrorCode.ValidationFailed) throw err;
      fields.push(...((err.extra.fields as FieldProblems[] | undefined) ?? []));
    }
    throw validationFailed(fields);
  }
}

export function createValidationPipe(): ValidationPipe {
  return new EdgeValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformerPackage: TRANSFORMER,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => validationFailed(flatten(errors)),
  });
}
