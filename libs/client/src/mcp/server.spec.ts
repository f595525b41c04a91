import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { SvcApi } from '../api';
import { EventStreamOptions, openFollowingEventStream } from '../event-stream';
import { SvcHttpError } from '../http-client';
import { harnessToken, SvcMcpSession } from './server';

// The live stream is the one part faked here: the test reads what it was asked to follow.
jest.mock('../event-stream', () => ({
  ...jest.requireActual<object>('../event-stream'),
  openFollowingEventStream: jest.fn(),
}));

async function waitUntil(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}

describe('harnessToken', () => {
  it.each([
    ['Claude Code', 'claude-code'],
    ['codex', 'codex'],
    ['Gemini CLI/1.0', 'gemini-cli/1.0'],
    ['  --', null],
    [undefined, null],
  ])('should make %p the token %p', (name, token) => {
    expect(harnessToken(name)).toBe(token);
  });
});

describe('SvcMcpSession (in memory)', () => {
  const blocker = {
    blocker: 'ATL-4',
    gate_point: 'activation',
    satisfaction: 'status:done',
    reason: 'ATL-4 is planned',
    need: 'ATL-4 must reach done',
    blocker_status: 'planned',
    blocker_title: 'Lexer',
    blocking_terminal: false,
    blocking_abandoned: false,
  };
  const refusal = {
    code: 'blocked_by_dependencies',
    message: 'ATL-6 cannot reach implementing',
    blockers: [blocker],
  };

  async function connect(api: Partial<Record<keyof SvcApi, jest.Mock>>, name = 'Claude Code') {
    const mcp = new SvcMcpSession({ api: api as unknown as SvcApi, token: 't', project: 'atl', version: '0.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.server.connect(serverSide);
    const client = new Client({ name, version: '1' });
    await client.connect(clientSide);
    return { mcp, client };
  }

  const session = { session_id: 7, harness: 'claude-code', model: 'unknown', lane: 'primary' };

  const claimed = (item_id: string) => ({
    dispatched: true,
    item_id,
    project: 'atl',
    adapter: 'conduct',
    entrypoint: `/svc conduct ${item_id}`,
    session_id: 7,
    wip_slot: true,
    claim: { claimed_at: '2026-01-01T00:00:00Z', expires_at: '2026-01-01T01:00:00Z' },
    decision: { item_id, adapter: 'conduct', dispatched: true, reason: 'dispatched', project: 'atl' },
    event_id: '9',
  });

  // one runnable item, ATL-6, in the session's schedule
  const claimApi = () => ({
    registerSession: jest.fn().mockResolvedValue(session),
    endSession: jest.fn().mockResolvedValue({}),
    explain: jest.fn().mockResolvedValue({ item_id: 'ATL-6', project: 'atl', bucket: 'runnable', summary: [] }),
    schedule: jest.fn().mockResolvedValue({
      session_id: 7,
      lane: 'primary',
      scope: ['atl'],
      steps: [
        {
          position: 1,
          item_id: 'ATL-6',
          title: 'Parser',
          project: 'atl',
          status: 'planned',
          priority: 'high',
          adapter: 'conduct',
          lane: 'primary',
          next_step: { stage: 'planned', adapter: 'conduct', entrypoint: '/svc conduct ATL-6' },
          entrypoint: '/svc conduct ATL-6',
          wait: false,
          wip_slot: true,
          claimed_by_session: false,
          unblocks_count: 0,
          downstream_depth: 0,
        },
      ],
      projects: [],
      runnable_elsewhere: null,
    }),
  });

  it('should register the session with the client’s name as harness and end it on close', async () => {
    const api = {
      registerSession: jest.fn().mockResolvedValue(session),
      heartbeat: jest.fn().mockResolvedValue({}),
      endSession: jest.fn().mockResolvedValue({}),
    };
    const { mcp, client } = await connect(api);
    await mcp.sessionId;
    expect(api.registerSession).toHaveBeenCalledWith({
      harness: 'claude-code',
      model: 'unknown',
      project: 'atl',
      label: 'svc mcp',
    });
    await mcp.close();
    expect(api.endSession).toHaveBeenCalledWith(7);
    await client.close();
  });

  it('should answer a gate refusal as a tool error: code and message, each blocker, then the daemon’s body', async () => {
    const api = {
      registerSession: jest.fn().mockResolvedValue(session),
      endSession: jest.fn().mockResolvedValue({}),
      setItemStatus: jest.fn().mockRejectedValue(new SvcHttpError(409, refusal)),
    };
    const { mcp, client } = await connect(api);
    const result = (await client.callTool({
      name: 'set_status',
      arguments: { item: 'ATL-6', status: 'implementing' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    const lines = (result.content[0] as { text: string }).text.split('\n');
    expect(lines).toEqual([
      'blocked_by_dependencies: ATL-6 cannot reach implementing',
      '- ATL-4 (planned) [status:done]: ATL-4 must reach done',
      JSON.stringify(refusal),
    ]);
    await mcp.close();
    await client.close();
  });

  it('should give a claim cancelled while it ran back before the connection’s next claim starts', async () => {
    const order: string[] = [];
    let answerFirst!: () => void;
    const firstAnswered = new Promise<void>((resolve) => (answerFirst = resolve));
    let dispatches = 0;
    const api = {
      ...claimApi(),
      dispatch: jest.fn(async ({ item_id }: { item_id: string }) => {
        dispatches += 1;
        order.push(`claim ${dispatches}`);
        if (dispatches === 1) await firstAnswered;
        return claimed(item_id);
      }),
      // a release that takes a while, as one over HTTP does: time for a second claim to overtake it
      releaseClaim: jest.fn(async () => {
        for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
        order.push('released');
        return {};
      }),
    };
    const { mcp, client } = await connect(api);
    const controller = new AbortController();
    const first = client
      .callTool({ name: 'claim', arguments: { item: 'ATL-6' } }, undefined, { signal: controller.signal })
      .catch(() => 'cancelled');
    await waitUntil(() => dispatches === 1);
    controller.abort();
    const second = client.callTool({ name: 'claim', arguments: { item: 'ATL-6' } }) as Promise<CallToolResult>;
    answerFirst();
    expect(await first).toBe('cancelled');
    expect((await second).isError).toBeFalsy();
    // the cancelled call's claim went back before the second claim was made, so the second one stands
    expect(order).toEqual(['claim 1', 'released', 'claim 2']);
    await mcp.close();
    await client.close();
  });

  it('should undo only its own claim when a cancellation comes after the item was given back and claimed again', async () => {
    const order: string[] = [];
    let dispatches = 0;
    const api = {
      ...claimApi(),
      dispatch: jest.fn(({ item_id }: { item_id: string }) => {
        dispatches += 1;
        order.push(`claim ${dispatches}`);
        return Promise.resolve(claimed(item_id));
      }),
      releaseClaim: jest.fn(() => {
        order.push('released');
        return Promise.resolve({ released: true, item_id: 'ATL-6', session_id: 7 });
      }),
    };
    const { mcp, client } = await connect(api);
    const controller = new AbortController();
    const first = (await client.callTool({ name: 'claim', arguments: { item: 'ATL-6' } }, undefined, {
      signal: controller.signal,
    })) as CallToolResult;
    expect(first.isError).toBeFalsy();
    expect((await client.callTool({ name: 'release', arguments: { item: 'ATL-6' } })).isError).toBeFalsy();
    expect(
      ((await client.callTool({ name: 'claim', arguments: { item: 'ATL-6' } })) as CallToolResult).isError,
    ).toBeFalsy();
    // the SDK sends notifications/cancelled for the first call although it was answered long ago
    controller.abort();
    // a third claim starts after the cancellation was handled (one connection, one claim at a time)
    expect(
      ((await client.callTool({ name: 'claim', arguments: { item: 'ATL-6' } })) as CallToolResult).isError,
    ).toBeFalsy();
    expect(order).toEqual(['claim 1', 'released', 'claim 2', 'claim 3']);
    await mcp.close();
    await client.close();
  });

  it('should refuse an argument the tool does not take, naming the ones it does, and call nothing', async () => {
    const api = {
      registerSession: jest.fn().mockResolvedValue(session),
      endSession: jest.fn().mockResolvedValue({}),
      createItem: jest.fn().mockResolvedValue({}),
    };
    const { mcp, client } = await connect(api);
    const result = (await client.callTool({
      name: 'create_item',
      arguments: { title: 'Parser', description: 'the body, under the wrong name' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(
      /unknown argument description: create_item takes only title, project, priority, status, workflow, body, spec/,
    );
    expect(api.createItem).not.toHaveBeenCalled();
    const tools = await client.listTools();
    const createItem = tools.tools.find((t) => t.name === 'create_item')!;
    expect(createItem.inputSchema.additionalProperties).toBe(false);
    await mcp.close();
    await client.close();
  });

  it('should register a new session when the heartbeat finds its session ended elsewhere', async () => {
    const api = {
      registerSession: jest
        .fn()
        .mockResolvedValueOnce(session)
        .mockResolvedValueOnce({ ...session, session_id: 8 }),
      heartbeat: jest.fn().mockRejectedValue(new SvcHttpError(409, { code: 'session_ended', message: 'ended' })),
      endSession: jest.fn().mockResolvedValue({}),
    };
    const mcp = new SvcMcpSession({
      api: api as unknown as SvcApi,
      token: 't',
      project: 'atl',
      version: '0.0.0',
      heartbeatMs: 10,
    });
    expect(await mcp.sessionId).toBe(7);
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (api.heartbeat.mock.calls.length > 0) {
          clearInterval(poll);
          resolve();
        }
      }, 5);
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(await mcp.sessionId).toBe(8);
    await mcp.close();
    expect(api.endSession).toHaveBeenCalledWith(8);
  });

  it('should ask the live stream for the frontier notices of the subscribed projects, and follow (un)subscriptions', async () => {
    const follow = jest.fn();
    const opened = jest.mocked(openFollowingEventStream).mockImplementation((options: EventStreamOptions) => {
      // open at once: the subscribe answer waits for it
      setImmediate(() => options.onStatus?.('open'));
      return { follow, close: jest.fn() } as unknown as ReturnType<typeof openFollowingEventStream>;
    });
    const api = {
      registerSession: jest.fn().mockResolvedValue(session),
      heartbeat: jest.fn().mockResolvedValue({}),
      endSession: jest.fn().mockResolvedValue({}),
    };
    const { mcp, client } = await connect(api);
    await client.subscribeResource({ uri: 'svc://frontier/atl' });
    expect(opened).toHaveBeenCalledTimes(1);
    expect(opened.mock.calls[0][0].frontier).toEqual(['atl']);
    await client.subscribeResource({ uri: 'svc://frontier/beta' });
    expect(opened).toHaveBeenCalledTimes(1);
    expect(follow).toHaveBeenLastCalledWith(['atl', 'beta']);
    await client.unsubscribeResource({ uri: 'svc://frontier/atl' });
    expect(follow).toHaveBeenLastCalledWith(['beta']);
    await client.close();
    await mcp.close();
  });
});
