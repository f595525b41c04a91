import { EventEmitter } from 'node:events';

import { onConnectionClose } from './connection-close';

function connection(destroyed = false) {
  return Object.assign(new EventEmitter(), { destroyed });
}

describe(onConnectionClose.name, () => {
  it('should call back when the connection closes', () => {
    const target = connection();
    const gone = jest.fn();
    onConnectionClose(target, gone);
    expect(gone).not.toHaveBeenCalled();
    target.emit('close');
    expect(gone).toHaveBeenCalledTimes(1);
  });

  it('should call back at once for a connection that closed before it listened, and only once', () => {
    const target = connection(true);
    const gone = jest.fn();
    onConnectionClose(target, gone);
    expect(gone).toHaveBeenCalledTimes(1);
    // destroyed is set before 'close' is emitted: the late event calls nothing more
    target.emit('close');
    expect(gone).toHaveBeenCalledTimes(1);
  });
});
