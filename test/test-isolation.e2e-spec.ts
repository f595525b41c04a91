import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { runSvc } from '@app/testing';

// The tests must not trip over the checkout they run in (issue 40): the user guide has people write a .svc.json there.
describe('command-line runs in tests', () => {
  const started = process.cwd();
  afterEach(() => process.chdir(started));

  it("should not take the project from a .svc.json in the test run's working directory", async () => {
    const checkout = mkdtempSync(join(tmpdir(), 'svc-test-checkout-'));
    writeFileSync(join(checkout, '.svc.json'), JSON.stringify({ project: 'atlas' }));
    process.chdir(checkout);
    // nothing listens there: a command that found a project would try to reach it
    const result = await runSvc(['frontier', 'list'], { env: { SVC_URL: 'http://127.0.0.1:9', SVC_TOKEN: 'x' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('project_required');
  });
});
