import { terminalLine } from '../terminal-text';
import type { DependencyGraph, GraphEdge, GraphNode } from './dependency-graph';

// Stored text only ever appears inside a quoted label, escaped for that syntax, so a hostile title cannot end the
// label or start a statement; node ids are made from refs, never from stored text.

const TITLE_MAX = 60;

// The text goes to a terminal as well as to a renderer: control characters and bidi overrides are first shown as
// escapes (terminal-text.ts), newlines and tabs as spaces.
function shortTitle(title: string, max = TITLE_MAX): string {
  const line = terminalLine(title.replace(/[\n\t\r]+/g, ' ')).trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

// Mermaid: inside "…" a label ends at the next quote; entity codes (#quot; #35; …) print the character itself.
// GitHub also sanitizes HTML in labels, so < and > are written as codes, and so is every character Mermaid or
// markdown could read as syntax.
export function mermaidText(text: string, max = TITLE_MAX): string {
  return shortTitle(text, max).replace(/["#<>&;`{}[\]()|\\*_~]/g, (c) => `#${c.charCodeAt(0)};`);
}

export function dotText(text: string, max = TITLE_MAX): string {
  return shortTitle(text, max).replace(/[\\"]/g, (c) => `\\${c}`);
}

const mermaidId = (ref: string) => `n_${ref.replace(/[^A-Za-z0-9]/g, '_')}`;

function stateOf(node: GraphNode): string {
  const parts = [node.status];
  if (node.frozen) parts.push('frozen');
  else if (node.bucket === 'blocked' || node.bucket === 'runnable') parts.push(node.bucket);
  if (node.critical) parts.push('critical path');
  return parts.join(' · ');
}

function edgeLabel(edge: GraphEdge): string {
  return edge.satisfied ? edge.gate_point : `${edge.gate_point} · blocked`;
}

export function renderMermaid(graph: DependencyGraph): string {
  const lines = ['flowchart LR'];
  for (const n of graph.nodes) {
    const label = `${mermaidText(n.ref)}: ${mermaidText(n.title)}<br/>${mermaidText(stateOf(n))}`;
    lines.push(`  ${mermaidId(n.ref)}["${label}"]`);
  }
  const blocked: number[] = [];
  const critical: number[] = [];
  graph.edges.forEach((e, i) => {
    const arrow = e.critical ? '==>' : e.satisfied ? '-.->' : '-->';
    lines.push(`  ${mermaidId(e.blocker)} ${arrow}|"${mermaidText(edgeLabel(e))}"| ${mermaidId(e.dependent)}`);
    if (e.critical) critical.push(i);
    else if (!e.satisfied) blocked.push(i);
  });
  if (graph.truncated) {
    lines.push(`  cut_note["${mermaidText(graph.truncated.note, Infinity)}"]`);
  }
  lines.push('  classDef runnable fill:#dafbe1,stroke:#1a7f37,color:#0d1117');
  lines.push('  classDef blocked fill:#ffebe9,stroke:#cf222e,color:#0d1117');
  lines.push('  classDef frozen fill:#eaeef2,stroke:#57606a,color:#57606a,stroke-dasharray:4 3');
  lines.push('  classDef other fill:#ffffff,stroke:#8c959f,color:#0d1117');
  lines.push('  classDef critical stroke:#bf8700,stroke-width:3px');
  lines.push('  classDef root stroke-width:4px');
  lines.push('  classDef note fill:#fff8c5,stroke:#9a6700,color:#0d1117');
  const byClass = new Map<string, string[]>();
  for (const n of graph.nodes) {
    const classes: string[] = [n.frozen ? 'frozen' : n.bucket];
    if (n.critical) classes.push('critical');
    if (n.root) classes.push('root');
    for (const c of classes) byClass.set(c, [...(byClass.get(c) ?? []), mermaidId(n.ref)]);
  }
  for (const [c, ids] of byClass) lines.push(`  class ${ids.join(',')} ${c}`);
  if (graph.truncated) lines.push('  class cut_note note');
  if (blocked.length > 0) lines.push(`  linkStyle ${blocked.join(',')} stroke:#cf222e,stroke-width:2px`);
  if (critical.length > 0) lines.push(`  linkStyle ${critical.join(',')} stroke:#bf8700,stroke-width:4px`);
  return `${lines.join('\n')}\n`;
}

const FILL: Record<string, string> = {
  runnable: '#dafbe1',
  blocked: '#ffebe9',
  frozen: '#eaeef2',
  other: '#ffffff',
};

export function renderDot(graph: DependencyGraph): string {
  const q = (text: string) => `"${dotText(text)}"`;
  const lines = [
    'digraph svc {',
    '  rankdir=LR;',
    '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
    '  edge [fontname="Helvetica", fontsize=9];',
  ];
  for (const n of graph.nodes) {
    const attrs = [
      `label="${dotText(n.ref)}: ${dotText(n.title)}\\n${dotText(stateOf(n))}"`,
      `fillcolor="${FILL[n.frozen ? 'frozen' : n.bucket]}"`,
    ];
    if (n.frozen) attrs.push('style="rounded,filled,dashed"');
    if (n.critical) attrs.push('color="#bf8700"', 'penwidth=3');
    if (n.root) attrs.push('peripheries=2');
    lines.push(`  ${q(n.ref)} [${attrs.join(', ')}];`);
  }
  for (const e of graph.edges) {
    const attrs = [`label=${q(edgeLabel(e))}`];
    if (e.critical) attrs.push('color="#bf8700"', 'penwidth=3');
    else if (!e.satisfied) attrs.push('color="#cf222e"');
    else attrs.push('style=dashed');
    lines.push(`  ${q(e.blocker)} -> ${q(e.dependent)} [${attrs.join(', ')}];`);
  }
  if (graph.truncated) {
    lines.push(`  cut_note [shape=note, fillcolor="#fff8c5", label="${dotText(graph.truncated.note, Infinity)}"];`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
