import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DaemonLock, DaemonLockHeldError, LOCK_FILE, readLock } from './daemon-lock';

const fresh = () => mkdtempSync(join(tmpdir(), 'svc-lock-spec-'));

describe(DaemonLock.name, () => {
  it('should write the holder, update its address and remove the file on release', () => {
    const home = fresh();
    const lock = DaemonLock.acquire(home, 'http://127.0.0.1:7700');
    expect(readLock(home)).toMatchObject({ pid: process.pid, url: 'http://127.0.0.1:7700' });
    lock.update('http://127.0.0.1:41234');
    expect(readLock(home)?.url).toBe('http://127.0.0.1:41234');
    lock.release();
    expect(existsSync(join(home, LOCK_FILE))).toBe(false);
  });

  it('should refuse while a live process holds the folder, naming its pid and address', () => {
    const home = fresh();
    // This jest worker is alive; its command line matches what the lock records.
    const lock = DaemonLock.acquire(home, 'http://127.0.0.1:7700');
    const holder = { ...readLock(home)!, pid: process.ppid, cmdline: '' };
    writeFileSync(join(home, LOCK_FILE), JSON.stringify(holder));
    let error: unknown;
    try {
      DaemonLock.acquire(home, 'http://127.0.0.1:7701');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DaemonLockHeldError);
    expect((error as Error).message).toContain(`pid ${process.ppid}, http://127.0.0.1:7700`);
    expect(JSON.parse(readFileSync(join(home, LOCK_FILE), 'utf8'))).toEqual(holder);
    lock.release();
  });

  it('should take over a lock whose process is gone', () => {
    const home = fresh();
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    writeFileSync(join(home, LOCK_FILE), JSON.stringify({ pid: Number(gone), url: 'http://old', cmdline: 'x' }));
    const lock = DaemonLock.acquire(home, 'http://new');
    expect(readLock(home)).toMatchObject({ pid: process.pid, url: 'http://new' });
    lock.release();
  });

  it('should take over a lock whose pid now runs another program', () => {
    const home = fresh();
    writeFileSync(
      join(home, LOCK_FILE),
      JSON.stringify({ pid: process.ppid, url: 'http://old', cmdline: 'not the command line of that process' }),
    );
    const lock = DaemonLock.acquire(home, 'http://new');
    expect(readLock(home)?.pid).toBe(process.pid);
    lock.release();
  });
});
