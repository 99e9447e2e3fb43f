// Extra indicators in the top bar, registered by the modules that own them (the offline
// module adds its pending-entries badge) so the layout never has to know about them.
//
//   registerHeaderItem(PendingBadge);   // at module load; returns an unregister function
//
// The count of open alerts follows them, for the roles that receive alerts; its code is a chunk
// of its own, loaded once such a user is logged in.
import { Fragment, lazy, Suspense, useSyncExternalStore, type ComponentType } from 'react';
import { can } from '../../shared/permissions';
import { useSessionStore } from './session-store';

const AlertsBadge = lazy(() => import('../modules/alerts/alerts-badge'));

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

/** Renders every registered item, in registration order, then the alerts count. */
export function HeaderSlot() {
  const current = useSyncExternalStore(subscribe, getItems, getItems);
  const alerts = useSessionStore((s) => s.logged && can(s.roles, 'alert.view'));
  return (
    <>
      {current.map((Item) => (
        <Fragment key={ids.get(Item)}>
          <Item />
        </Fragment>
      ))}
      {alerts && (
        <Suspense fallback={null}>
          <AlertsBadge />
        </Suspense>
      )}
    </>
  );
}
