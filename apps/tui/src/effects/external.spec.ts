import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SvcApi } from '@app/client';
import { waitFor } from '@app/testing';

import type { Action } from '../state/actions';
import { reduce } from '../state/reduce';
import { initialState, State } from '../state/state';
import { frontier, item, NOW, project } from '../testing/fixtures';
import type { EffectsContext } from './context';
import { External, fillTemplate, linkOf } from './external';

// `o` and tui.json's commands: the opener gets the item's link; a command's output shows, sanitized.

describe(linkOf.name, () => {
  it('should take github_issue (a URL or owner/repo#N), else the first URL of the body', () => {
    expect(linkOf({ github_issue: 'https://github.com/a/b/issues/3', body: '' })).toBe(
      'https://github.com/a/b/issues/3',
    );
    expect(linkOf({ github_issue: 'acme/app#12', body: '' })).toBe('https://github.com/acme/app/issues/12');
    expect(linkOf({ github_issue: null, body: 'see https://example.com/x?y=1. And more' })).toBe(
      'https://example.com/x?y=1',
    );
    expect(linkOf({ github_issue: null, body: 'no link; file:///etc/passwd' })).toBeNull();
  });

  it('should quote every value in a shell command and encode {ref}/{title} in a URL', () => {
    const values = { ref: 'ATL-1', title: "it's $(rm -rf ~)", url: 'https://x/y?a=1&b=2' };
    expect(fillTemplate('echo {title} {url}', values, 'shell')).toBe(
      `echo 'it'\\''s $(rm -rf ~)' 'https://x/y?a=1&b=2'`,
    );
    expect(fillTemplate('https://s/?q={title}&r={ref}', values, 'url')).toBe(
      "https://s/?q=it's%20%24(rm%20-rf%20~)&r=ATL-1",
    );
  });
});

describe(External.name, () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tui-opener-'));
  const opened = join(dir, 'opened.txt');
  const opener = join(dir, 'opener.sh');
  writeFileSync(opener, `#!/bin/sh\nprintf '%s\\n' "$@" >> '${opened}'\n`);
  chmodSync(opener, 0o755);

  function setup(api: Record<string, jest.Mock>) {
    const actions: Action[] = [
      { type: 'projects_loaded', projects: [project('atlas')] } as Action,
      { type: 'frontier_loaded', project: 'atlas', frontier: frontier([item(1), item(2)]) } as Action,
    ];
    let state: State = actions.reduce<State>((s, a) => reduce(s, a), {
      ...initialState({ now: NOW }),
      userCommands: [
        { name: 'echo', run: 'printf "%s|%s\\n" {ref} {title}; printf "\\033[31mred\\033[0m\\n"' },
        { name: 'search', open: 'https://search.example/?q={title}' },
        { name: 'issue', open: '{url}' },
      ],
    });
    const ctx: EffectsContext = {
      config: { api: api as unknown as SvcApi } as EffectsContext['config'],
      get state() {
        return state;
      },
      stopped: false,
      dispatch: (action) => {
        const previous = state;
        state = reduce(state, action);
        external.onAction(previous, state);
      },
      refetch: jest.fn(),
      loadDetail: jest.fn(),
      failed: jest.fn(),
      noticed: jest.fn(),
    };
    const external = new External(ctx, opener);
    return { ctx, state: () => state };
  }

  it("should hand the item's link to the opener on o, and say when there is none", async () => {
    const api = {
      item: jest
        .fn()
        .mockResolvedValueOnce({ item_id: 'ATL-1', title: 'T', github_issue: 'acme/app#12', body: '' })
        .mockResolvedValueOnce({ item_id: 'ATL-1', title: 'T', github_issue: null, body: 'nothing here' }),
    };
    const { ctx, state } = setup(api);
    ctx.dispatch({ type: 'key', action: 'open_link' });
    await waitFor(() => existsSync(opened) && readFileSync(opened, 'utf8').includes('issues/12'), {
      timeout: 10_000,
    });
    expect(readFileSync(opened, 'utf8')).toBe('https://github.com/acme/app/issues/12\n');
    ctx.dispatch({ type: 'key', action: 'open_link' });
    await waitFor(() => /has no link/.test(state().status?.text ?? ''), { timeout: 10_000 });
  });

  it('should run a command with the placeholders quoted and show its output in a dialog, escapes stripped', async () => {
    const title = "it's $(touch /tmp/svc-pwned) `id`";
    const api = { item: jest.fn().mockResolvedValue({ item_id: 'ATL-1', title, github_issue: null, body: '' }) };
    const { ctx, state } = setup(api);
    ctx.dispatch({ type: 'user_command', name: 'echo' });
    await waitFor(() => state().dialog?.kind === 'view', { timeout: 10_000 });
    const d = state().dialog as { title: string; lines: string[] };
    expect(d.title).toBe('echo ATL-1 (exit 0)');
    expect(d.lines).toEqual([`ATL-1|${title}`, 'red']);
    // a command whose {url} the item lacks is refused in words
    ctx.dispatch({ type: 'user_command', name: 'issue' });
    await waitFor(() => /has no link for \{url\}/.test(state().status?.text ?? ''), { timeout: 10_000 });
    // an open command: the title URL-encoded
    ctx.dispatch({ type: 'user_command', name: 'search' });
    await waitFor(() => existsSync(opened) && readFileSync(opened, 'utf8').includes('search.example'), {
      timeout: 10_000,
    });
    expect(readFileSync(opened, 'utf8')).toContain(`https://search.example/?q=${encodeURIComponent(title)}`);
  });
});
