// /admin/envois: every submission still on the phone (site, date, actions, state, last error),
// with 'Envoyer maintenant', and per entry: resend (also what an entry the server keeps failing
// on, 'Erreur serveur', waits for), correct (reopens the site sheet with the server's errors
// under the fields) or, after a confirmation, discard.
import { useEffect, useState } from 'react';
import { Alert, Badge, Button, Card, Center, Group, List, Loader, Stack, Text, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { IconSend } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { typeActionsQuery } from '../../app/bootstrap.api';
import { useSessionStore } from '../../app/session-store';
import { displayBlockValue, type SiteInfos } from '../../../shared/schemas/interventions';
import type { TypeAction, TypeActionConstante } from '../../../shared/schemas/reference';
import { useIsOffline } from '../../offline/connectivity';
import { useOutboxEntries, type InterventionOutboxEntry } from '../../offline/hooks';
import { appOutbox, drainNow, type DrainReason } from '../../offline/outbox-runner';
import { blockerOf, MAX_FAILURES } from '../../offline/outbox';
import { readReference, referenceKeys } from '../../offline/reference-cache';
import type { OutboxState } from '../../offline/db';
import { constantesQuery } from './interventions.api';
import { OfflineBanner } from './offline-banner';
import { logInAgain } from './outbox-indicator';
import { cellLabel } from './interventions-paths';
import { formatParisDateTime } from '../../../shared/dates';

const STATE_LABELS: Record<OutboxState, { label: string; color: string }> = {
  pending: { label: 'En attente', color: 'yellow' },
  sending: { label: 'Envoi en cours', color: 'blue' },
  failed: { label: 'En échec', color: 'red' },
  auth: { label: 'Reconnexion nécessaire', color: 'orange' },
  error: { label: 'Erreur serveur', color: 'red' },
};

/** The cells of the sites the entries are about, from the phone's copy (works offline). */
function useCachedSites(siteIds: readonly number[]): Map<number, SiteInfos> {
  const [sites, setSites] = useState(new Map<number, SiteInfos>());
  const key = [...new Set(siteIds)].sort((a, b) => a - b).join(',');
  useEffect(() => {
    let cancelled = false;
    const ids = key === '' ? [] : key.split(',').map(Number);
    void Promise.all(ids.map(async (id) => [id, (await readReference<SiteInfos>(referenceKeys.siteInfos(id)))?.data] as const)).then((rows) => {
      if (cancelled) return;
      const map = new Map<number, SiteInfos>();
      for (const [id, infos] of rows) if (infos) map.set(id, infos);
      setSites(map);
    });
    return () => {
      cancelled = true;
    };
  }, [key]);
  return sites;
}

function blockSummary(
  block: InterventionOutboxEntry['payload']['values'][number],
  site: SiteInfos | undefined,
  typeActions: readonly TypeAction[],
  constantes: readonly TypeActionConstante[],
): string {
  const cell = site?.siteComposteurs.find((c) => c.id === block.composteur);
  const action = typeActions.find((a) => a.id === block.action);
  const label = `${cell ? cellLabel(cell) : `Cellule ${block.composteur}`} : ${action?.libelle ?? `Action ${block.action}`}`;
  const value = displayBlockValue(block, { constantes, cells: site?.siteComposteurs ?? [] });
  return value ? `${label} (${value})` : label;
}

function confirmDiscard(): Promise<boolean> {
  return new Promise((resolve) => {
    modals.openConfirmModal({
      title: 'Supprimer cette saisie ?',
      children: (
        <Text size="sm">
          Cette saisie n’a pas été enregistrée par le serveur : elle sera définitivement perdue. Cette action est irréversible.
        </Text>
      ),
      labels: { confirm: 'Oui', cancel: 'Non' },
      confirmProps: { color: 'red' },
      onConfirm: () => resolve(true),
      onCancel: () => resolve(false),
      onClose: () => resolve(false),
    });
  });
}

export function OutboxPage() {
  const entries = useOutboxEntries();
  const userId = useSessionStore((s) => s.id);
  const typeActions = useQuery(typeActionsQuery());
  const constantes = useQuery(constantesQuery());
  const offline = useIsOffline();
  const navigate = useNavigate();
  const [sending, setSending] = useState(false);
  const sites = useCachedSites((entries ?? []).map((e) => e.payload.site));

  const sendNow = async (reason: DrainReason = 'button') => {
    setSending(true);
    try {
      const report = await drainNow(reason);
      if (!report) return;
      if (report.sent.length > 0) notifications.show({ color: 'green', autoClose: 3000, message: `${report.sent.length} saisie(s) envoyée(s)` });
      if (report.retryLater) notifications.show({ color: 'gray', autoClose: 6000, message: 'Le serveur ne répond pas : nouvel essai automatique dès que possible.' });
      if (report.failed.length > 0) notifications.show({ color: 'red', autoClose: 10_000, message: `${report.failed.length} saisie(s) refusée(s) par le serveur : corrigez-les ou supprimez-les.` });
      if (report.serverErrors.length > 0) {
        notifications.show({ color: 'red', autoClose: 10_000, message: `${report.serverErrors.length} saisie(s) en erreur sur le serveur : elles restent sur le téléphone.` });
      }
    } finally {
      setSending(false);
    }
  };

  const resend = async (entry: InterventionOutboxEntry) => {
    await (await appOutbox()).resend(entry.clientId);
    await sendNow('resend');
  };

  const discard = async (entry: InterventionOutboxEntry) => {
    if (await confirmDiscard()) await (await appOutbox()).discard(entry.clientId);
  };

  if (entries === undefined) {
    return (
      <Center py="xl" role="status">
        <Loader aria-label="Chargement…" />
      </Center>
    );
  }
  const mine = entries.filter((e) => e.ownerId === userId);
  const needsLogin = mine.some((e) => e.state === 'auth');

  return (
    <Stack maw={860} mx="auto" gap="md">
      <OfflineBanner />
      <Group justify="space-between" align="flex-end">
        <Title order={2}>Envois en attente</Title>
        <Button leftSection={<IconSend size={16} aria-hidden />} onClick={() => void sendNow()} loading={sending} disabled={mine.length === 0}>
          Envoyer maintenant
        </Button>
      </Group>
      {needsLogin && (
        <Alert color="orange" role="alert" title="Session expirée : reconnectez-vous pour envoyer vos saisies">
          <Button size="xs" color="orange" variant="light" onClick={() => void logInAgain()} disabled={offline}>
            Se reconnecter
          </Button>
        </Alert>
      )}
      {entries.length === 0 ? (
        <Text c="dimmed">Aucun résultat</Text>
      ) : (
        <Stack gap="sm" component="ul" p={0} style={{ listStyle: 'none' }} aria-label="Saisies non envoyées">
          {entries.map((entry) => {
            const state = STATE_LABELS[entry.state];
            const own = entry.ownerId === userId;
            const site = sites.get(entry.payload.site);
            const blocker = entry.state === 'pending' ? blockerOf(entry, entries) : undefined;
            return (
              <Card key={entry.clientId} withBorder component="li" padding="md" aria-label={`${entry.siteLabel}, ${formatParisDateTime(entry.payload.date)}`}>
                <Stack gap={6}>
                  <Group justify="space-between" wrap="nowrap" align="flex-start">
                    <div>
                      <Text fw={600}>{entry.siteLabel}</Text>
                      <Text size="sm">Intervention du {formatParisDateTime(entry.payload.date)}</Text>
                    </div>
                    <Badge color={state.color}>{state.label}</Badge>
                  </Group>
                  <List size="sm">
                    {entry.payload.values.map((block, i) => (
                      <List.Item key={i}>{blockSummary(block, site, typeActions.data ?? [], constantes.data ?? [])}</List.Item>
                    ))}
                  </List>
                  {!own && (
                    <Text size="sm" c="dimmed">
                      Saisie de {entry.ownerName || 'un autre compte'} : elle sera envoyée quand ce compte se reconnectera sur ce téléphone.
                    </Text>
                  )}
                  {blocker && (
                    <Text size="sm" c="dimmed">
                      Traite la même demande d’intervention qu’une saisie précédente ({formatParisDateTime(blocker.payload.date)}) : elle sera envoyée
                      après elle.
                    </Text>
                  )}
                  {entry.lastError && (
                    <Text size="sm" c={entry.state === 'failed' || entry.state === 'error' ? 'red' : 'dimmed'}>
                      Dernière erreur : {entry.lastError}
                    </Text>
                  )}
                  {entry.state === 'error' && (
                    <Text size="sm">
                      Le serveur a échoué {MAX_FAILURES} fois sur cette saisie : elle reste sur le téléphone et n’est plus renvoyée automatiquement.
                    </Text>
                  )}
                  {entry.fieldErrors.length > 0 && (
                    <List size="sm" c="red">
                      {entry.fieldErrors.map((e) => (
                        <List.Item key={e.key}>{e.error}</List.Item>
                      ))}
                    </List>
                  )}
                  <Group gap="xs" justify="flex-end">
                    {own && entry.state === 'failed' && entry.fieldErrors.length > 0 && (
                      <Button size="xs" onClick={() => void navigate(`/admin/fiche/site/${entry.payload.site}?corriger=${entry.clientId}`)}>
                        Corriger
                      </Button>
                    )}
                    {own && (entry.state === 'failed' || entry.state === 'auth' || entry.state === 'error' || (entry.failures ?? 0) > 0) && (
                      <Button size="xs" variant="light" onClick={() => void resend(entry)} disabled={sending}>
                        Renvoyer
                      </Button>
                    )}
                    <Button size="xs" variant="subtle" color="red" onClick={() => void discard(entry)} disabled={entry.state === 'sending'}>
                      Supprimer
                    </Button>
                  </Group>
                </Stack>
              </Card>
            );
          })}
        </Stack>
      )}
    </Stack>
  );
}
