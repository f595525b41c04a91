import * as contracts from '@app/contracts';
import * as core from '@app/core';

// The wire's vocabulary (libs/contracts, what the command line offers and the DTOs accept) and the core's (what the
// computations know) are declared apart because neither lib may import the other; they must stay the same lists.
describe('dependency vocabulary', () => {
  it('the wire and the core name the same gate points and sources', () => {
    expect([...contracts.GATE_POINTS]).toEqual([...core.GATE_POINTS]);
    expect([...contracts.DEPENDENCY_SOURCES]).toEqual([...core.DEPENDENCY_SOURCES]);
  });
});
