import { isHttpError, SvcConnectionError } from '@app/client';

import { detailEdges } from '../state/edges';
import { pipelineOf } from '../state/pipeline';
import { DETAIL_HISTORY, isFrontierTab } from '../state/state';
import type { DbClaimResponse } from '../wire';
import { describe, EffectsContext } from './context';

const DETAIL_DEBOUNCE_MS = 60;

export class DetailLoader {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly ctx: EffectsContext) {}

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  load(ref: string, delay = DETAIL_DEBOUNCE_MS): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.fetch(ref);
    }, delay);
  }

  private async fetch(ref: string): Promise<void> {
    const { api } = this.ctx.config;
    const state = this.ctx.state;
    const project = state.project;
    const item = isFrontierTab(state.tab) ? state.frontier?.[state.tab].find((i) => i.item_id === ref) : null;
    const dispatch = this.ctx.dispatch.bind(this.ctx);
    const part = async (name: string, work: () => Promise<void>) => {
      try {
        await work();
      } catch (err) {
        if (err instanceof SvcConnectionError) return;
        dispatch({ type: 'detail_loaded', ref, data: { part: 'error', message: `${name}: ${describe(err)}` } });
      }
    };
    await Promise.all([
      part('explain', async () => {
        dispatch({ type: 'detail_loaded', ref, data: { part: 'explain', value: await api.explain(ref) } });
      }),
      part('item', async () => {
        const value = await api.item(ref);
        dispatch({ type: 'detail_loaded', ref, data: { part: 'item', value } });
        if (value.deployment_flow && project) {
          const [progress, flows] = await Promise.all([api.itemProgress(ref), api.deploymentFlows(project)]);
          const flow = flows.flows.find((f) => f.id === value.deployment_flow);
          dispatch({
            type: 'detail_loaded',
            ref,
            data: {
              part: 'pipeline',
              value: pipelineOf(value.deployment_flow, value.deploy_stage, progress, flow?.stages),
            },
          });
        } else {
          dispatch({ type: 'detail_loaded', ref, data: { part: 'pipeline', value: null } });
        }
      }),
      project
        ? part('edges', async () => {
            const [stored, into, out] = await Promise.all([
              api.dependencies(ref, { direction: 'both' }),
              api.frontierList({ project, dependent: ref, only: 'edges' }),
              api.frontierList({ project, blocker: ref, only: 'edges' }),
            ]);
            dispatch({
              type: 'detail_loaded',
              ref,
              data: {
                part: 'edges',
                edges: detailEdges(stored.dependencies, into.dependency_edges, out.dependency_edges),
              },
            });
          })
        : null,
      part('db claim', async () => {
        let value: DbClaimResponse | null = null;
        try {
          value = await api.dbClaim(ref);
        } catch (err) {
          if (!isHttpError(err, 404)) throw err;
        }
        dispatch({ type: 'detail_loaded', ref, data: { part: 'dbClaim', value } });
      }),
      // a daemon without the record (404) shows no History section
      part('history', async () => {
        try {
          const body = await api.itemHistory(ref, { limit: DETAIL_HISTORY });
          dispatch({ type: 'detail_loaded', ref, data: { part: 'history', value: body.changes } });
        } catch (err) {
          if (!isHttpError(err, 404)) throw err;
        }
      }),
      item?.workflow_id === 'epic'
        ? part('epic tasks', async () => {
            const body = await api.epicTasks(ref);
            dispatch({ type: 'detail_loaded', ref, data: { part: 'epicTasks', value: body.tasks } });
          })
        : null,
    ]);
  }
}
