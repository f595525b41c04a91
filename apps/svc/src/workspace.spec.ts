import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { findWorkspace, resolveProjectScope } from './workspace';

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

describe(resolveProjectScope.name, () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-scope-'));
  writeFileSync(join(root, '.svc.json'), JSON.stringify({ project: 'file' }));

  it('should take the flag, else SVC_PROJECT, else .svc.json', () => {
    expect(resolveProjectScope('flag', { cwd: root, env: { SVC_PROJECT: 'env' } })?.project).toBe('flag');
    expect(resolveProjectScope(undefined, { cwd: root, env: { SVC_PROJECT: 'env' } })?.project).toBe('env');
    expect(resolveProjectScope(undefined, { cwd: root, env: {} })?.project).toBe('file');
  });

  it('should treat SVC_PROJECT set but blank as unset (the .svc.json applies)', () => {
    expect(resolveProjectScope(undefined, { cwd: root, env: { SVC_PROJECT: ' ' } })?.project).toBe('file');
  });

  it('should drop the implicit scope with allProjects, never a typed flag', () => {
    expect(resolveProjectScope(undefined, { cwd: root, env: { SVC_PROJECT: 'env' }, allProjects: true })).toBeNull();
    expect(resolveProjectScope('flag', { cwd: root, env: {}, allProjects: true })?.project).toBe('flag');
  });
});
