// Extra indicators of the top bar, registered by the modules that own them (the field entry
// module adds its pending-entries badge) so the layout never has to know about them; the
// shell's header slot (app/header-slot.tsx) renders them in registration order.
//
//   registerHeaderItem(PendingBadge);   // at module load; returns an unregister function
import { useSyncExternalStore, type ComponentType } from 'react';

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

/** The registered items, in registration order; re-renders when one comes or goes. */
export function useHeaderItems(): readonly ComponentType[] {
  return useSyncExternalStore(subscribe, getItems, getItems);
}

/** A stable React key for a registered item (the same after it is unregistered and registered again). */
export function headerItemKey(Component: ComponentType): number | undefined {
  return ids.get(Component);
}
