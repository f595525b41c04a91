import { Pool } from 'undici';

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  statuses: Record<string, number>;
}

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// Closed-loop load: `concurrency` requests always in flight until `total` are sent or `seconds` pass.
export async function runLoad(
  url: string,
  next: (i: number) => RequestSpec,
  options: { concurrency: number; total?: number; seconds?: number },
): Promise<LoadResult> {
  const pool = new Pool(url, { connections: options.concurrency, pipelining: 1, keepAliveTimeout: 30_000 });
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const started = process.hrtime.bigint();
  const deadline = options.seconds ? started + BigInt(Math.round(options.seconds * 1e9)) : null;
  let issued = 0;
  const worker = async () => {
    for (;;) {
      if (options.total !== undefined && issued >= options.total) return;
      if (deadline !== null && process.hrtime.bigint() >= deadline) return;
      const spec = next(issued);
      issued += 1;
      const t0 = process.hrtime.bigint();
      try {
        const res = await pool.request({
          method: spec.method,
          path: spec.path,
          headers: spec.headers,
          body: spec.body,
        });
        await res.body.dump();
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      } catch {
        statuses.error = (statuses.error ?? 0) + 1;
      }
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    requests: latencies.length,
    seconds: round(seconds),
    rps: Math.round(latencies.length / seconds),
    p50_ms: round(percentile(latencies, 50)),
    p99_ms: round(percentile(latencies, 99)),
    max_ms: round(latencies[latencies.length - 1] ?? 0),
    statuses,
  };
}
