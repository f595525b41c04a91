// Draft-07 schemas (the dialect MCP clients get in tools/list) that also carry the TypeScript type of what they
// accept, so a handler's arguments are typed by its input schema. Nothing here validates: ajv does.

export type JsonSchema = { [keyword: string]: unknown };

declare const VALUE: unique symbol;

export interface Schema<T> {
  readonly json: JsonSchema;
  readonly [VALUE]?: T;
}

export interface OptionalSchema<T> extends Schema<T> {
  readonly optional: true;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

export type Shape = { readonly [property: string]: Schema<unknown> };

type Simplify<T> = { [K in keyof T]: T[K] } & {};

export type ShapeValue<S extends Shape> = Simplify<
  { [K in keyof S as S[K] extends OptionalSchema<unknown> ? never : K]: Infer<S[K]> } & {
    [K in keyof S as S[K] extends OptionalSchema<unknown> ? K : never]?: Infer<S[K]>;
  }
>;

export interface ObjectSchema<S extends Shape> extends Schema<ShapeValue<S>> {
  readonly shape: S;
}

const schema = <T>(json: JsonSchema): Schema<T> => ({ json });

export const string = (rules: { minLength?: number; maxLength?: number } = {}) =>
  schema<string>({ type: 'string', ...rules });
export const number = () => schema<number>({ type: 'number' });
export const integer = (rules: { minimum?: number; maximum?: number } = {}) =>
  schema<number>({ type: 'integer', ...rules });
export const boolean = () => schema<boolean>({ type: 'boolean' });
export const stringOrNumber = () => schema<string | number>({ type: ['string', 'number'] });

export const literal = <const V extends string | number | boolean>(value: V) =>
  schema<V>({ type: typeof value, const: value });

export const oneOf = <const V extends readonly string[]>(values: V) =>
  schema<V[number]>({ type: 'string', enum: [...values] });
export const oneOfNumbers = <const V extends readonly number[]>(values: V) =>
  schema<V[number]>({ type: 'number', enum: [...values] });

export const array = <T>(items: Schema<T>, rules: { maxItems?: number } = {}) =>
  schema<T[]>({ type: 'array', items: items.json, ...rules });

export const record = <T>(values: Schema<T>) =>
  schema<Record<string, T>>({ type: 'object', additionalProperties: values.json });

// Any value at all (`{}`): what a JSON object's values are when nothing more is said of them.
export const anything = () => schema<unknown>({});

// Any JSON value, typed as T (a recursive JSON type): written out one level deep instead of by a `$ref` back to
// itself, which strict clients refuse; each level below is any JSON value too, which is all JSON can hold.
export const jsonValue = <T>() =>
  schema<T>({
    anyOf: [
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'null' },
      { type: 'array', items: {} },
      { type: 'object', additionalProperties: {} },
    ],
  });

const PRIMITIVES = new Set(['string', 'number', 'integer', 'boolean']);

// `type: [t, "null"]` for a bare primitive, otherwise `anyOf` with null.
export function nullable<T>(inner: Schema<T>): Schema<T | null> {
  const keys = Object.keys(inner.json);
  const type = inner.json.type;
  if (keys.length === 1 && typeof type === 'string' && PRIMITIVES.has(type)) return schema({ type: [type, 'null'] });
  return schema({ anyOf: [inner.json, { type: 'null' }] });
}

export function optional<T>(inner: Schema<T>): OptionalSchema<T> {
  return { json: inner.json, optional: true };
}

export function describe<S extends Schema<unknown>>(inner: S, description: string): S {
  return { ...inner, json: { ...inner.json, description } };
}

export function isOptional(property: Schema<unknown>): boolean {
  return (property as Partial<OptionalSchema<unknown>>).optional === true;
}

export function object<S extends Shape>(shape: S): ObjectSchema<S> {
  const properties: JsonSchema = {};
  const required: string[] = [];
  for (const [name, property] of Object.entries(shape)) {
    properties[name] = property.json;
    if (!isOptional(property)) required.push(name);
  }
  return {
    shape,
    json: {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
  };
}

export function extend<A extends Shape, B extends Shape>(
  base: ObjectSchema<A>,
  more: B,
): ObjectSchema<Omit<A, keyof B> & B> {
  return object({ ...base.shape, ...more } as Omit<A, keyof B> & B);
}
