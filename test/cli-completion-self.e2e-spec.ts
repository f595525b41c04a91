import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { runSvc } from '@app/testing';

// The printed completion scripts call the svc that printed them (here `node bin/svc.js`), so completion works with
// no `svc` on PATH. Each shell sources the printed script with a PATH that has no svc and completes `svc ite`.
const PATH = '/usr/local/bin:/usr/bin:/bin';

function run(shell: string, script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(shell, ['-c', script], { env: { PATH, HOME: tmpdir() }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

const DRIVERS: Record<string, (file: string) => string> = {
  bash: (file) =>
    `source '${file}'\nCOMP_WORDS=(svc ite); COMP_CWORD=1; _svc_complete; printf '%s\\n' "\${COMPREPLY[@]}"`,
  zsh: (file) => `source '${file}'\ncompadd() { shift; print -l -- "$@"; }\nwords=(svc ite); CURRENT=2; _svc`,
  fish: (file) => `source '${file}'\ncomplete -C 'svc ite'`,
};

describe('completion scripts call the svc that printed them', () => {
  it.each(Object.keys(DRIVERS))('%s completes with no svc on PATH', async (shell) => {
    const found = await run('sh', `command -v ${shell}`);
    if (found.code !== 0 && process.env.CI !== 'true') return;
    expect((await run('sh', 'command -v svc')).code).not.toBe(0);
    const printed = await runSvc(['completion', shell]);
    expect(printed.code).toBe(0);
    const file = join(mkdtempSync(join(tmpdir(), 'svc-completion-')), `svc.${shell}`);
    writeFileSync(file, printed.stdout);
    const result = await run(shell, DRIVERS[shell](file));
    expect(result.stdout.split('\n').map((l) => l.split('\t')[0])).toContain('items');
  });
});
