import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { CliError } from '../output';

// Loaded from the build at run time, as the snapshot tool is.
export interface OfflineCheck {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

export interface OfflineTool {
  mintAdminToken: (
    env: NodeJS.ProcessEnv,
    name?: string,
  ) => Promise<{ token: string; token_id: number; token_prefix: string; actor: string; path: 'offline' }>;
  offlineDoctor: (env: NodeJS.ProcessEnv) => Promise<OfflineCheck[]>;
}

export function offlineToolEntry(): string {
  return join(__dirname, '..', '..', '..', 'daemon', 'src', 'database', 'offline-tool.js');
}

export function loadOfflineTool(): OfflineTool {
  const entry = offlineToolEntry();
  if (!existsSync(entry)) throw new CliError('daemon_missing', `${entry} not found; run npm run build first`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(entry) as OfflineTool;
}

// OfflineError carries a snake_case code; it prints like every other refusal.
export async function runOffline<T>(fn: (tool: OfflineTool) => Promise<T>): Promise<T> {
  const tool = loadOfflineTool();
  try {
    return await fn(tool);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (err instanceof Error && err.name === 'OfflineError' && typeof code === 'string') {
      throw new CliError(code, err.message);
    }
    throw err;
  }
}
