import { rmSync } from 'node:fs';

import { ENV_EMBEDDED_HOME } from './environment';
import { cleanLeftovers } from './leftovers';

export default async function globalTeardown(): Promise<void> {
  const embedded = globalThis.__SVC_EMBEDDED__;
  if (!embedded) return; // already torn down by the other tier's teardown
  globalThis.__SVC_EMBEDDED__ = undefined;
  await embedded.stop();
  const home = process.env[ENV_EMBEDDED_HOME];
  if (home) rmSync(home, { recursive: true, force: true });
  cleanLeftovers({ own: true });
}
