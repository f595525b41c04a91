import { renderDispatchCommand, shellQuote } from './charge.command';

describe(renderDispatchCommand.name, () => {
  it('should shell-quote every substituted value', () => {
    expect(
      renderDispatchCommand('run {entrypoint} for {ref} in {project} as {adapter}', {
        entrypoint: '/svc conduct AB-1',
        ref: 'AB-1',
        project: 'ab',
        adapter: 'conduct',
      }),
    ).toBe("run '/svc conduct AB-1' for 'AB-1' in 'ab' as 'conduct'");
  });

  it('should neutralise quotes in a value', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});
