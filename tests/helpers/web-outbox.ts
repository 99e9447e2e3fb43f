// The phone's outbox as the outbox stores it, for tests of the offline layer and of the field
// screens alike (no screen or module imported here).
import type { InterventionSubmission } from '../../src/shared/schemas/interventions';
import type { OutboxEntry } from '../../src/web/offline/db';
import { openOfflineDb } from '../../src/web/offline/store';

/**
 * Puts an entry in the phone's outbox as the outbox stores it: waiting, never tried, made by
 * account 7 on QUA005, unless `entry` says otherwise. Returns its clientId (the payload's).
 */
export async function storeOutboxEntry(entry: Partial<OutboxEntry<InterventionSubmission>> & { payload: InterventionSubmission }): Promise<string> {
  const createdAt = entry.createdAt ?? Date.now();
  await (
    await openOfflineDb()
  ).outbox.add({
    clientId: entry.payload.clientId,
    createdAt,
    ownerId: 7,
    ownerName: 'jean@exemple.fr',
    siteLabel: 'QUA005 - Rue de Siam (Jardin des Capucins)',
    state: 'pending',
    attempts: 0,
    failures: 0,
    nextAttemptAt: createdAt,
    lastError: null,
    fieldErrors: [],
    ...entry,
  });
  return entry.payload.clientId;
}
