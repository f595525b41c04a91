import { rmSync } from 'node:fs';

import { ENV_EMBEDDED_HOME } from './environment';

export default async function globalTeardown(): Promise<void> {
  await globalThis.__SVC_EMBEDDED__?.stop();
  const home = process.env[ENV_EMBEDDED_HOME];
  if (home) rmSync(home, { recursive: true, force: true });
}
