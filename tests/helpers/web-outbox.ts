// The phone's outbox as the outbox stores it, for tests of the offline layer and of the field
// screens alike (no screen or module imported here).
import type { InterventionSubmission } from '../../src/shared/schemas/interventions';
import type { OutboxEntry } from '../../src/web/offline/db';
import { openOfflineDb } from '../../src/web/offline/store';
import { newOutboxEntry } from '../../src/web/offline/outbox';

/**
 * Puts an entry in the phone's outbox as the outbox stores it: waiting, never tried, made by
 * account 7 on QUA005, unless `entry` says otherwise. Returns its clientId (the payload's).
 */
export async function storeOutboxEntry(entry: Partial<OutboxEntry<InterventionSubmission>> & { payload: InterventionSubmission }): Promise<string> {
  const meta = { ownerId: 7, ownerName: 'jean@exemple.fr', siteLabel: 'QUA005 - Rue de Siam (Jardin des Capucins)' };
  await (await openOfflineDb()).outbox.add({ ...newOutboxEntry(entry.payload, meta, entry.createdAt ?? Date.now()), ...entry } as OutboxEntry);
  return entry.payload.clientId;
}
