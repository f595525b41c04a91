import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { findWorkspace } from './workspace';

describe(findWorkspace.name, () => {
  it('should find .svc.json upward from the working directory', () => {
    const root = mkdtempSync(join(tmpdir(), 'svc-ws-'));
    writeFileSync(join(root, '.svc.json'), JSON.stringify({ project: 'alpha' }));
    const deep = join(root, 'a', 'b');
    mkdirSync(deep, { recursive: true });
    expect(findWorkspace(deep, {})).toEqual({ project: 'alpha', source: join(root, '.svc.json') });
  });

  it('should prefer SVC_PROJECT', () => {
    expect(findWorkspace('/', { SVC_PROJECT: 'beta' })).toEqual({ project: 'beta', source: 'SVC_PROJECT' });
  });
});
