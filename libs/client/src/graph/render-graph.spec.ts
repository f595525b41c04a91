import { cutGraph, DependencyGraph, longestBlockedChain } from './dependency-graph';
import { dotText, mermaidText, renderDot, renderMermaid } from './render-graph';

const HOSTILE = 'Evil "quote"] --> X[pwned]\n%% end; classDef a fill:red\u001b[31m <script>#1 \\ `x`';

function sample(): DependencyGraph {
  return {
    project: 'atlas',
    root: 'ATL-6',
    depth: 2,
    nodes: [
      {
        ref: 'ATL-1',
        title: 'Start',
        status: 'refined-idea',
        bucket: 'runnable',
        frozen: false,
        root: false,
        critical: true,
      },
      {
        ref: 'ATL-6',
        title: HOSTILE,
        status: 'refined-idea',
        bucket: 'blocked',
        frozen: false,
        root: true,
        critical: true,
      },
      { ref: 'ATL-7', title: 'Later', status: 'idea', bucket: 'frozen', frozen: true, root: false, critical: false },
      { ref: 'ATL-2', title: 'Done one', status: 'done', bucket: 'other', frozen: false, root: false, critical: false },
    ],
    edges: [
      { blocker: 'ATL-1', dependent: 'ATL-6', gate_point: 'activation', satisfied: false, critical: true },
      { blocker: 'ATL-6', dependent: 'ATL-7', gate_point: 'integration', satisfied: false, critical: false },
      { blocker: 'ATL-2', dependent: 'ATL-6', gate_point: 'closure', satisfied: true, critical: false },
    ],
    critical_path: ['ATL-1', 'ATL-6'],
    truncated: null,
  };
}

describe('graph renderers', () => {
  it('should write a Mermaid flowchart GitHub renders: quoted labels, classDef, linkStyle', () => {
    const text = renderMermaid(sample());
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('flowchart LR');
    expect(lines).toContain('  n_ATL_1["ATL-1: Start<br/>refined-idea · runnable · critical path"]');
    expect(lines).toContain('  n_ATL_1 ==>|"activation · blocked"| n_ATL_6');
    expect(lines).toContain('  n_ATL_6 -->|"integration · blocked"| n_ATL_7');
    expect(lines).toContain('  n_ATL_2 -.->|"closure"| n_ATL_6');
    expect(lines).toContain('  class n_ATL_7 frozen');
    expect(lines).toContain('  class n_ATL_1,n_ATL_6 critical');
    expect(lines).toContain('  linkStyle 1 stroke:#cf222e,stroke-width:2px');
    expect(lines).toContain('  linkStyle 0 stroke:#bf8700,stroke-width:4px');
  });

  it('should keep a hostile title inside its label', () => {
    const text = renderMermaid(sample());
    const line = text.split('\n').find((l) => l.startsWith('  n_ATL_6['))!;
    // one statement, one quoted label: no quote, bracket, newline or escape of the title survives
    // eslint-disable-next-line no-control-regex
    expect(line).toMatch(/^ {2}n_ATL_6\["[^"\n\u001b]*"\]$/);
    expect(line).not.toMatch(/<script>/);
    expect(text.split('\n').filter((l) => l.includes('pwned'))).toHaveLength(1);
    expect(mermaidText('a"b[c]d')).toBe('a#34;b#91;c#93;d');
    expect(dotText('a"b\\c')).toBe('a\\"b\\\\c');
    const dot = renderDot(sample());
    const node = dot.split('\n').find((l) => l.startsWith('  "ATL-6" ['))!;
    // every quote in the line is escaped except those delimiting attribute values
    expect(node.replace(/\\\\/g, '').replace(/\\"/g, '').match(/"/g)!.length % 2).toBe(0);
    expect(node).not.toContain('\u001b');
  });

  it('should write dot with the gate point on each edge and the critical path marked', () => {
    const dot = renderDot(sample());
    expect(dot.startsWith('digraph svc {\n  rankdir=LR;')).toBe(true);
    expect(dot).toContain('"ATL-1" -> "ATL-6" [label="activation · blocked", color="#bf8700", penwidth=3];');
    expect(dot).toContain('"ATL-2" -> "ATL-6" [label="closure", style=dashed];');
    expect(dot).toContain('style="rounded,filled,dashed"');
    expect(dot.trimEnd().endsWith('}')).toBe(true);
  });

  it('should cut a big graph with a note, never silently', () => {
    const big = sample();
    const cut = cutGraph(big, 2);
    expect(cut.nodes.map((n) => n.ref)).toEqual(['ATL-1', 'ATL-6']);
    expect(cut.edges).toHaveLength(1);
    expect(cut.truncated).toEqual({ shown: 2, total: 4, note: expect.stringContaining('2 of 4 items shown') });
    expect(renderMermaid(cut)).toContain(
      'cut_note["graph cut: 2 of 4 items shown #40;lower --depth, or raise --max-nodes#41;"]',
    );
    expect(renderDot(cut)).toContain('cut_note [shape=note');
  });

  it('should find the longest chain of blocked activation edges', () => {
    const edge = (blocker: string, dependent: string, satisfied = false) => ({
      blocker,
      dependent,
      gate_point: 'activation',
      satisfied,
      critical: false,
    });
    expect(longestBlockedChain([edge('A', 'B'), edge('B', 'C'), edge('X', 'C'), edge('C', 'D', true)])).toEqual([
      'A',
      'B',
      'C',
    ]);
    expect(longestBlockedChain([edge('A', 'B'), edge('B', 'A')])).toHaveLength(2);
  });
});
