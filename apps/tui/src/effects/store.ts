import type { Action } from '../state/actions';
import { reduce } from '../state/reduce';
import type { State } from '../state/state';

export type Listener = (action: Action, previous: State, next: State) => void;

export class Store {
  private readonly listeners: Listener[] = [];

  constructor(private current: State) {}

  get state(): State {
    return this.current;
  }

  dispatch = (action: Action): void => {
    const previous = this.current;
    this.current = reduce(previous, action);
    for (const listener of this.listeners) listener(action, previous, this.current);
  };

  subscribe(listener: Listener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }
}
