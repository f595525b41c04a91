import { STRUCTURED_FIELDS, StructuredField } from './items';

export const STRUCTURED_FIELD_HEADINGS: Readonly<Record<StructuredField, string>> = {
  spec: 'Spec',
  design_spec: 'Design spec',
  technical_plan: 'Technical plan',
  worktree_plan: 'Worktree plan',
  shepherd_log: 'Shepherd log',
  shepherd_caveats: 'Shepherd caveats',
  test_results: 'Test results',
  deploy_log: 'Deploy log',
};

export interface RenderSection {
  section_name: string;
  content: string | null;
  ordering: number;
}

function present(text: string | null | undefined): text is string {
  return typeof text === 'string' && text.trim().length > 0;
}

// The body as read: the stored body text, then the sections (ordering, then name), then the structured
// fields in their fixed order, each under a level-2 heading. Empty parts are left out.
export function renderBody(
  body: string | null,
  sections: readonly RenderSection[],
  fields: Readonly<Partial<Record<StructuredField, string | null>>>,
): string {
  const parts: string[] = [];
  if (present(body)) parts.push(body.trim());
  const ordered = [...sections].sort(
    (a, b) =>
      a.ordering - b.ordering || (a.section_name < b.section_name ? -1 : a.section_name > b.section_name ? 1 : 0),
  );
  for (const section of ordered) {
    if (present(section.content)) parts.push(`## ${section.section_name}\n\n${section.content.trim()}`);
  }
  for (const field of STRUCTURED_FIELDS) {
    const value = fields[field];
    if (present(value)) parts.push(`## ${STRUCTURED_FIELD_HEADINGS[field]}\n\n${value.trim()}`);
  }
  return parts.join('\n\n');
}

// The TUI's `E` edits the stored body and the sections apart; a read of `body` answers the rendering.
export function storedBodyOf(
  rendered: string,
  sections: readonly RenderSection[],
  fields: Readonly<Partial<Record<StructuredField, string | null>>>,
): string {
  const suffix = renderBody(null, sections, fields);
  if (!suffix) return rendered;
  if (rendered === suffix) return '';
  if (rendered.endsWith(`\n\n${suffix}`)) return rendered.slice(0, rendered.length - suffix.length - 2);
  return rendered;
}
