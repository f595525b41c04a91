import type { ErrorBody } from '@app/contracts';

import { readText, send } from './transport';

export class SvcHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    readonly headers: Record<string, string | string[] | undefined> = {},
  ) {
    super(`${body.code}: ${body.message}`);
  }

  get code(): string {
    return this.body.code;
  }
}

export class SvcConnectionError extends Error {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`cannot reach the svc daemon at ${url}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

export type Query = Record<string, string | number | boolean | undefined | null | readonly string[]>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export class SvcClient {
  // The daemon's write record and claim rule read these.
  readonly headers: Record<string, string> = {};

  constructor(
    readonly baseUrl: string,
    private readonly token: string | null,
  ) {}

  get<T>(path: string, query?: Query): Promise<T> {
    return this.json<T>('GET', path, { query });
  }

  post<T>(path: string, body?: unknown, query?: Query): Promise<T> {
    return this.json<T>('POST', path, { body: body ?? {}, query });
  }

  put<T>(path: string, body?: unknown): Promise<T> {
    return this.json<T>('PUT', path, { body: body ?? {} });
  }

  patch<T>(path: string, body?: unknown): Promise<T> {
    return this.json<T>('PATCH', path, { body: body ?? {} });
  }

  delete<T>(path: string, query?: Query): Promise<T> {
    return this.json<T>('DELETE', path, { query });
  }

  async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    return this.parse<T>(await this.raw(method, path, options));
  }

  parse<T>(res: RawResponse): T {
    let parsed: unknown = undefined;
    if (res.text.length > 0) {
      try {
        parsed = JSON.parse(res.text);
      } catch {
        parsed = undefined;
      }
    }
    if (res.status >= 400) {
      const body =
        parsed && typeof parsed === 'object' && typeof (parsed as ErrorBody).code === 'string'
          ? (parsed as ErrorBody)
          : { code: `http_${res.status}`, message: res.text.slice(0, 200) || `HTTP ${res.status}` };
      throw new SvcHttpError(res.status, body, res.headers);
    }
    return parsed as T;
  }

  async raw(method: string, path: string, options: RequestOptions = {}): Promise<RawResponse> {
    const url = new URL(path, this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) value.forEach((v) => url.searchParams.append(key, String(v)));
      else url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json', ...this.headers, ...(options.headers ?? {}) };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let body: string | undefined;
    if (options.body !== undefined && method !== 'GET' && method !== 'DELETE') {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    try {
      const res = await send(url, { method, headers, body });
      return { status: res.status, headers: res.headers, text: await readText(res.body) };
    } catch (cause) {
      throw new SvcConnectionError(this.baseUrl, cause);
    }
  }
}
