import { Agent as HttpAgent, IncomingHttpHeaders, IncomingMessage, request as httpRequest } from 'node:http';
import type * as Https from 'node:https';

// Node's own http/https: importing undici cost the TUI 0.13–0.3 s of its first frame (bench/README.md, "Terminal
// UI"). An idle kept-alive socket never holds the process open.

export interface TransportRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  idleTimeoutMs?: number;
}

export interface TransportResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: IncomingMessage;
}

const httpAgent = new HttpAgent({ keepAlive: true });
// node:https (and TLS) load on the first https:// call only: a local daemon is plain http
let tls: { request: typeof Https.request; agent: Https.Agent } | null = null;
function https(): { request: typeof Https.request; agent: Https.Agent } {
  if (!tls) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const module = require('node:https') as typeof Https;
    tls = { request: module.request, agent: new module.Agent({ keepAlive: true }) };
  }
  return tls;
}

export function send(url: URL, options: TransportRequest): Promise<TransportResponse> {
  return new Promise((resolve, reject) => {
    const secure = url.protocol === 'https:' ? https() : null;
    const headers: Record<string, string | number> = { ...options.headers };
    if (options.body !== undefined) headers['content-length'] = Buffer.byteLength(options.body);
    const req = (secure ? secure.request : httpRequest)(url, {
      method: options.method,
      headers,
      agent: secure ? secure.agent : httpAgent,
      signal: options.signal,
    });
    req.once('error', reject);
    req.once('response', (res) => {
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: res });
    });
    if (options.idleTimeoutMs) req.setTimeout(options.idleTimeoutMs, () => req.destroy(new Error('idle timeout')));
    req.end(options.body);
  });
}

// Decoded as it arrives: no second copy of a 20 MB answer in a concatenated Buffer.
export async function readText(body: IncomingMessage): Promise<string> {
  body.setEncoding('utf8');
  let text = '';
  for await (const chunk of body) text += chunk as string;
  return text;
}
