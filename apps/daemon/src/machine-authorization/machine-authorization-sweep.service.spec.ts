import { MachineAuthorizationSweepRepository } from './machine-authorization-sweep.repository';
import { MachineAuthorizationSweepService } from './machine-authorization-sweep.service';

describe(MachineAuthorizationSweepService.name, () => {
  it('should report what the round deleted', async () => {
    const result = { ran: true, authorizations: 3, rateCounters: 2, approvalSessions: 1, signInStates: 0 };
    const repository = { sweepRound: jest.fn(async () => result) };
    const sut = new MachineAuthorizationSweepService(repository as unknown as MachineAuthorizationSweepRepository);
    expect(await sut.sweep()).toEqual(result);
    expect(repository.sweepRound).toHaveBeenCalledTimes(1);
  });

  it('should report a skipped round when another replica holds the sweep', async () => {
    const skipped = { ran: false, authorizations: 0, rateCounters: 0, approvalSessions: 0, signInStates: 0 };
    const repository = { sweepRound: jest.fn(async () => skipped) };
    const sut = new MachineAuthorizationSweepService(repository as unknown as MachineAuthorizationSweepRepository);
    expect((await sut.sweep()).ran).toBe(false);
  });
});
