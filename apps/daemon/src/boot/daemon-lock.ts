import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Created atomically (written aside, then hard-linked: link fails if the name exists), so two daemons starting
// together cannot both win. A lock whose process is gone is stale and taken over.
export const LOCK_FILE = 'daemon.lock';

export interface LockHolder {
  pid: number;
  url: string;
  started_at: string;
  // The holder's command line when it took the lock: a recycled pid running something else is not the holder.
  cmdline: string;
}

export class DaemonLockHeldError extends Error {
  constructor(
    readonly holder: LockHolder,
    readonly home: string,
  ) {
    super(
      `another svc daemon (pid ${holder.pid}, ${holder.url}) already runs on ${home}; ` +
        'stop it first, or give this one its own SVC_HOME',
    );
  }
}

function cmdlineOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return null;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function holderAlive(holder: LockHolder): boolean {
  if (!Number.isInteger(holder.pid) || holder.pid <= 0 || !processAlive(holder.pid)) return false;
  const now = cmdlineOf(holder.pid);
  // Without /proc the pid alone decides; with it, the command line must still be the holder's.
  return now === null || holder.cmdline === '' || now === holder.cmdline;
}

function parseHolder(text: string): LockHolder | null {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (typeof value.pid !== 'number') return null;
    return {
      pid: value.pid,
      url: typeof value.url === 'string' ? value.url : '(address unknown)',
      started_at: typeof value.started_at === 'string' ? value.started_at : '',
      cmdline: typeof value.cmdline === 'string' ? value.cmdline : '',
    };
  } catch {
    return null;
  }
}

export function readLock(home: string): LockHolder | null {
  try {
    return parseHolder(readFileSync(join(home, LOCK_FILE), 'utf8'));
  } catch {
    return null;
  }
}

export class DaemonLock {
  private readonly path: string;
  private held = false;
  private readonly onExit = () => this.release();

  private constructor(
    private readonly home: string,
    private holder: LockHolder,
  ) {
    this.path = join(home, LOCK_FILE);
  }

  static acquire(home: string, url: string): DaemonLock {
    mkdirSync(home, { recursive: true, mode: 0o755 });
    const lock = new DaemonLock(home, {
      pid: process.pid,
      url,
      started_at: new Date().toISOString(),
      cmdline: cmdlineOf(process.pid) ?? '',
    });
    lock.take();
    return lock;
  }

  private take(): void {
    const aside = `${this.path}.${process.pid}.tmp`;
    writeFileSync(aside, `${JSON.stringify(this.holder)}\n`, { mode: 0o644 });
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        try {
          linkSync(aside, this.path);
          this.held = true;
          process.once('exit', this.onExit);
          return;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        }
        let text: string;
        try {
          text = readFileSync(this.path, 'utf8');
        } catch {
          continue; // released meanwhile: try again
        }
        const holder = parseHolder(text);
        if (holder && holder.pid !== process.pid && holderAlive(holder))
          throw new DaemonLockHeldError(holder, this.home);
        // Stale (or unreadable): remove it, unless another daemon replaced it since we read it.
        try {
          if (readFileSync(this.path, 'utf8') === text) unlinkSync(this.path);
        } catch {
          // gone already
        }
      }
      throw new Error(`could not take ${this.path}: it keeps changing`);
    } finally {
      try {
        unlinkSync(aside);
      } catch {
        // nothing to clean
      }
    }
  }

  // The listening address is known only after listen: the lock then names it.
  update(url: string): void {
    if (!this.held) return;
    this.holder = { ...this.holder, url };
    const aside = `${this.path}.${process.pid}.tmp`;
    writeFileSync(aside, `${JSON.stringify(this.holder)}\n`, { mode: 0o644 });
    renameSync(aside, this.path);
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    process.removeListener('exit', this.onExit);
    try {
      if (readLock(this.home)?.pid === process.pid) unlinkSync(this.path);
    } catch {
      // already gone
    }
  }
}
