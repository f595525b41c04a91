import { InvalidArgumentError } from 'commander';

import { parseCapabilities, parseStages, stageLabel } from './deployments.command';

describe('deployments command options', () => {
  it('should read --stages as names or as a JSON array of stages', () => {
    expect(parseStages('build,staging,,production')).toEqual(['build', 'staging', 'production']);
    expect(parseStages(' ["build", {"name": "production", "approval": true}]')).toEqual([
      'build',
      { name: 'production', approval: true },
    ]);
    expect(() => parseStages('[build')).toThrow(InvalidArgumentError);
  });

  it('should read --capabilities as a list, an empty value declaring none', () => {
    expect(parseCapabilities('docker, kubectl,')).toEqual(['docker', 'kubectl']);
    expect(parseCapabilities('')).toEqual([]);
  });

  it('should label a stage with the gates it waits for', () => {
    expect(stageLabel('build')).toBe('build');
    expect(stageLabel({ environment: 'production', approval: { role: 'admin' }, capabilities: ['kubectl'] })).toBe(
      'production (admin approval; needs kubectl)',
    );
    expect(stageLabel({ name: 'staging', approval: true })).toBe('staging (approval)');
    expect(stageLabel({ name: 'smoke', approval: false, capabilities: [] })).toBe('smoke');
  });
});
