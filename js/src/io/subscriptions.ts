// Model subscriptions that undo themselves: every `on` is paired with its `off`.
import type { AnyModel } from "@anywidget/types";

/** Listen to ``change:<trait>`` events; the returned function removes every listener. */
export function onModelChanges(model: AnyModel, handlers: Record<string, () => void>): () => void {
  const names = Object.keys(handlers);
  for (const name of names) model.on(`change:${name}`, handlers[name]);
  return () => {
    for (const name of names) model.off(`change:${name}`, handlers[name]);
  };
}

/** Run disposers in reverse order of registration (last set up, first torn down). */
export class Disposers {
  private items: (() => void)[] = [];

  add(dispose: () => void): void {
    this.items.push(dispose);
  }

  dispose(): void {
    const items = this.items.reverse();
    this.items = [];
    for (const d of items) d();
  }
}
