// Extra indicators in the top bar, registered by the modules that own them (the offline
// module adds its pending-entries badge) so the layout never has to know about them.
//
//   registerHeaderItem(PendingBadge);   // at module load; returns an unregister function
import { Fragment, useSyncExternalStore, type ComponentType } from 'react';

let items: readonly ComponentType[] = [];
const ids = new WeakMap<ComponentType, number>();
let nextId = 0;
const listeners = new Set<() => void>();

function emit() {
  for (const listener of listeners) listener();
}

export function registerHeaderItem(Component: ComponentType): () => void {
  if (!items.includes(Component)) {
    if (!ids.has(Component)) ids.set(Component, nextId++);
    items = [...items, Component];
    emit();
  }
  return () => {
    items = items.filter((c) => c !== Component);
    emit();
  };
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

const getItems = () => items;

/** Renders every registered item, in registration order. */
export function HeaderSlot() {
  const current = useSyncExternalStore(subscribe, getItems, getItems);
  return (
    <>
      {current.map((Item) => (
        <Fragment key={ids.get(Item)}>
          <Item />
        </Fragment>
      ))}
    </>
  );
}
