// Calls `gone` once, when the client's connection closes, or at once if it has closed already. A handler that awaits
// before it listens never hears a 'close' that came meanwhile: a stream slot it then takes would be held for good.
export function onConnectionClose(
  target: { readonly destroyed: boolean; once(event: 'close', listener: () => void): unknown },
  gone: () => void,
): void {
  let called = false;
  const once = () => {
    if (called) return;
    called = true;
    gone();
  };
  target.once('close', once);
  // destroyed comes first, its 'close' a tick later: both may call
  if (target.destroyed) once();
}
