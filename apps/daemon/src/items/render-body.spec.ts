import { renderBody } from '@app/contracts/backlog';

describe(renderBody.name, () => {
  it('should render body, ordered sections, then structured fields', () => {
    const text = renderBody(
      'Intro.\n',
      [
        { section_name: 'Zeta', content: 'last', ordering: 2 },
        { section_name: 'Context', content: 'first', ordering: 1 },
        { section_name: 'Alpha', content: 'tie', ordering: 2 },
        { section_name: 'Empty', content: '  ', ordering: 0 },
      ],
      { technical_plan: 'plan', spec: 'the spec', deploy_log: null },
    );
    expect(text).toBe(
      'Intro.\n\n## Context\n\nfirst\n\n## Alpha\n\ntie\n\n## Zeta\n\nlast\n\n## Spec\n\nthe spec\n\n## Technical plan\n\nplan',
    );
  });

  it('should be empty when nothing is set', () => {
    expect(renderBody(null, [], {})).toBe('');
  });
});
