// The top bar's indicators: the items modules register (lib/header-items.ts; the field entry
// module adds its pending-entries badge), then the count of open alerts for the roles that
// receive alerts; its code is a chunk of its own, loaded once such a user is logged in.
import { Fragment, lazy, Suspense } from 'react';
import { can } from '../../shared/permissions';
import { headerItemKey, useHeaderItems } from '../lib/header-items';
import { useSessionStore } from '../session/session-store';

const AlertsBadge = lazy(() => import('../modules/alerts/alerts-badge'));

/** Renders every registered item, in registration order, then the alerts count. */
export function HeaderSlot() {
  const current = useHeaderItems();
  const alerts = useSessionStore((s) => s.logged && can(s.roles, 'alert.view'));
  return (
    <>
      {current.map((Item) => (
        <Fragment key={headerItemKey(Item)}>
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
