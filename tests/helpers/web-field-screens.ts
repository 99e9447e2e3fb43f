// What the component tests of the field entry screens (src/web/modules/field-entry) share, on
// top of web-app.tsx: the field screens rendered in the whole app, a clean phone before each
// test, picking an option of the site sheet's native selects, and the outbox as stored.
//
//   startEachTestOnACleanPhone();
//   const api = mockApi({...});  openFieldScreen('/admin/fiche/site/5');
//   await chooseOption(/Cellule/, 'Cellule n°1 - Apport');  expect(await outboxRows()).toHaveLength(1);
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { notifications } from '@mantine/notifications';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { fieldEntryPublicRoutes, fieldEntryRoutes } from '../../src/web/modules/field-entry/field-entry.routes';
import { useConnectivityStore } from '../../src/web/offline/connectivity';
import { openOfflineDb } from '../../src/web/offline/store';
import { renderApp } from './web-app';

export { storeOutboxEntry } from './web-outbox';
import type { SiteInfos } from '../../src/shared/schemas/interventions';

/** The whole app at `path`, with the field entry screens (logged-in and public) mounted. */
export const openFieldScreen = (path: string) => renderApp(path, { loggedRoutes: fieldEntryRoutes, publicRoutes: fieldEntryPublicRoutes });

/**
 * Before each test of the calling file: no toast, nothing in local or session storage, the
 * network and the server reachable, and the phone's database empty (outbox, photos, reference
 * copies, sent receipts). After each: the screen unmounted, spies and stubbed globals restored.
 */
export function startEachTestOnACleanPhone() {
  beforeEach(async () => {
    notifications.clean();
    localStorage.clear();
    sessionStorage.clear();
    // A test that met no network leaves the app believing the server is unreachable.
    useConnectivityStore.setState({ browserOnline: true, serverUnreachable: false, cause: 'network' });
    const db = await openOfflineDb();
    await Promise.all([db.outbox.clear(), db.photos.clear(), db.photoData.clear(), db.reference.clear(), db.sent.clear()]);
  });
  afterEach(async () => {
    cleanup();
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
    // A write the test's screen started (the outbox, a receipt) may still land after it is
    // unmounted: let it, then empty the phone again, so that it never shows in the next test.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const db = await openOfflineDb();
    await Promise.all([db.outbox.clear(), db.photos.clear(), db.photoData.clear(), db.sent.clear()]);
  });
}

/** Picks `option` in the native select labelled `label`, once it is enabled (the first render of a lazy screen can take seconds). */
export async function chooseOption(label: RegExp, option: string, scope: Pick<typeof screen, 'findByRole'> = screen) {
  const select = await scope.findByRole('combobox', { name: label }, { timeout: 10_000 });
  await waitFor(() => expect(select).toBeEnabled());
  await userEvent.selectOptions(select, within(select).getByRole('option', { name: option }));
}

/** The entries waiting in the phone's outbox. */
export const outboxRows = async () => (await openOfflineDb()).outbox.toArray();

/**
 * The site of the field screens' tests: QUA005 'Jardin des Capucins' with an input cell (id 51,
 * n°1) and a maturation cell (id 53, n°3); `withBroyat` adds a shredded-wood cell (id 52, n°2).
 */
export function fieldSite(opts: { withBroyat?: boolean } = {}): SiteInfos {
  return {
    id: 5,
    code: 'QUA005',
    nom: 'Jardin des Capucins',
    numero: '12',
    adresse: 'Rue de Siam',
    cp: '29200',
    ville: 'Brest',
    typeSite: 'Quartier',
    siteComposteurs: [
      { id: 51, numero: 1, typeBac: 1, libelleTypeBac: 'Apport', volume: 600, actif: true },
      ...(opts.withBroyat ? [{ id: 52, numero: 2, typeBac: 2, libelleTypeBac: 'Broyat', volume: 400, actif: true }] : []),
      { id: 53, numero: 3, typeBac: 3, libelleTypeBac: 'Maturation', volume: 600, actif: true },
    ],
  };
}

