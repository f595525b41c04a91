import { EventsService } from '../events/events.service';
import { FrontierService } from '../frontier/read-path/frontier.service';
import { MachineAuthorizationSweepService } from '../machine-authorization/machine-authorization-sweep.service';
import { SweepsService } from './sweeps.service';

describe(SweepsService.name, () => {
  const events = { purgeExpired: jest.fn().mockResolvedValue(0) } as unknown as EventsService;
  const frontier = { pruneTombstones: jest.fn().mockResolvedValue(0) } as unknown as FrontierService;
  const result = { ran: true, authorizations: 1, rateCounters: 2, approvalSessions: 0 };

  it('should sweep machine authorizations on start-up', async () => {
    const sweep = jest.fn().mockResolvedValue(result);
    const sut = new SweepsService({ sweep } as unknown as MachineAuthorizationSweepService, events, frontier);
    await sut.onApplicationBootstrap();
    expect(sweep).toHaveBeenCalledTimes(1);
  });

  it('should not overlap two runs of the same sweep', async () => {
    let release: () => void = () => undefined;
    const sweep = jest.fn().mockImplementation(() => new Promise((resolve) => (release = () => resolve(result))));
    const sut = new SweepsService({ sweep } as unknown as MachineAuthorizationSweepService, events, frontier);
    const first = sut.sweepMachineAuthorizations();
    await sut.sweepMachineAuthorizations();
    release();
    await first;
    expect(sweep).toHaveBeenCalledTimes(1);
  });

  it('should survive a failed sweep', async () => {
    const sweep = jest.fn().mockRejectedValue(new Error('db down'));
    const sut = new SweepsService({ sweep } as unknown as MachineAuthorizationSweepService, events, frontier);
    await expect(sut.sweepMachineAuthorizations()).resolves.toBeUndefined();
  });

  it('should survive a failed tombstone sweep', async () => {
    const failing = {
      pruneTombstones: jest.fn().mockRejectedValue(new Error('db down')),
    } as unknown as FrontierService;
    const sut = new SweepsService({ sweep: jest.fn() } as unknown as MachineAuthorizationSweepService, events, failing);
    await expect(sut.sweepTombstones()).resolves.toBeUndefined();
    expect(failing.pruneTombstones).toHaveBeenCalledTimes(1);
  });
});
