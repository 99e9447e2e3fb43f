// /admin/envois ('Envois' in the drawer): every submission still on the phone (site, date,
// actions, or for a permanence's tally its permanence and figures; state: en attente, envoi en cours, refusée with the server's reasons, erreur serveur;
// its photos and their size), with 'Envoyer maintenant', and per entry: resend (also what an
// entry the server keeps failing on, 'Erreur serveur', waits for), correct (reopens the site
// sheet with the server's errors under the fields) or, after a confirmation, discard with its
// photos. Below, the photos whose entry reached the server and that are still to send, each
// with its state, size, resend and discard; then this account's last entries sent ('Envoyée').
// What stops a send is told apart: no network ('Pas de réseau') or a server that does not
// answer ('Serveur indisponible').
import { useEffect, useState } from 'react';
import { Alert, Badge, Button, Card, Group, List, Stack, Text, Title } from '@mantine/core';
import { Loading } from '../../components/query-state';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { IconSend } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { typeActionsQuery } from '../../session/bootstrap.api';
import { useSessionStore } from '../../session/session-store';
import { displayBlockValue, type SiteInfos } from '../../../shared/schemas/interventions';
import { frenchValue } from '../../lib/format';
import type { TypeAction, TypeActionConstante } from '../../../shared/schemas/reference';
import { useConnectivityStore, useIsOffline } from '../../offline/connectivity';
import { useOutboxEntries, useOutboxPhotos, useQueuedPhotoUrls, useSentEntries, type AnyOutboxEntry, type InterventionOutboxEntry, type SentReceipt } from '../../offline/hooks';
import { appOutbox, appPhotoQueue, discardEntry, drainNow, SENT_KEPT, type DrainReason } from '../../offline/outbox-runner';
import { blockerOf, isBilanEntry, MAX_FAILURES } from '../../offline/outbox';
import { bilanLines, bilanTitle, formatPermanenceWhen, permanencesPath } from '../permanences/public';
import { readReference, referenceKeys } from '../../offline/reference-cache';
import type { OutboxPhoto, OutboxState } from '../../offline/db';
import { PhotoStrip } from '../../components/photo-strip';
import { constantesQuery } from './field-entry.api';
import { OfflineBanner } from './offline-banner';
import { logInAgain } from './outbox-indicator';
import { cellLabel } from '../../lib/labels';
import { formatParisDateTime } from '../../../shared/dates';
import { PageTitle } from '../../components/page-title';

const STATE_LABELS: Record<OutboxState, { label: string; color: string }> = {
  pending: { label: 'En attente', color: 'yellow' },
  sending: { label: 'Envoi en cours', color: 'blue' },
  failed: { label: 'Refusée', color: 'red' },
  auth: { label: 'Reconnexion nécessaire', color: 'orange' },
  error: { label: 'Erreur serveur', color: 'red' },
};

/** 'Envoyer maintenant' while the phone says it has no network: nothing is tried. */
export const NO_NETWORK_SEND_MESSAGE = 'Pas de réseau : les saisies seront envoyées automatiquement dès son retour.';
/** A drain stopped because nothing answered. */
export const NETWORK_RETRY_MESSAGE = 'Pas de réseau : nouvel essai automatique dès son retour.';
/** A drain stopped because a gateway answered for a server that is down. */
export const SERVER_RETRY_MESSAGE = 'Serveur indisponible : nouvel essai automatique dans quelques minutes.';

/** A badge that keeps its words whole whatever the width (Mantine's would cut them with an ellipsis). */
const BADGE_STYLE = { flex: 'none', overflow: 'visible' } as const;

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
  return value ? `${label} (${frenchValue(value)})` : label;
}

/** '312 Ko', '1,4 Mo'. */
export function formatSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} Ko`;
  return `${(bytes / (1024 * 1024)).toFixed(1).replace('.', ',')} Mo`;
}

/** '2 photos (612 Ko)'. */
export function photosSummary(photos: readonly Pick<OutboxPhoto, 'size'>[]): string {
  const bytes = photos.reduce((n, p) => n + p.size, 0);
  return `${photos.length} photo${photos.length > 1 ? 's' : ''} (${formatSize(bytes)})`;
}

function QueuedThumbnails({ photos, label }: { photos: readonly OutboxPhoto[]; label: string }) {
  const urls = useQueuedPhotoUrls(photos);
  const strip = photos.flatMap((p, i) => {
    const url = urls.get(p.clientId);
    return url ? [{ key: p.clientId, thumbnail: url, full: url, alt: `Photo ${i + 1} sur ${photos.length}` }] : [];
  });
  return <PhotoStrip photos={strip} label={label} size={48} />;
}

function confirmDiscard(withPhotos = 0): Promise<boolean> {
  return new Promise((resolve) => {
    modals.openConfirmModal({
      title: 'Supprimer cette saisie ?',
      children: (
        <Text size="sm">
          Cette saisie n’a pas été enregistrée par le serveur : elle sera définitivement perdue
          {withPhotos > 0 ? `, avec ${withPhotos === 1 ? 'sa photo' : `ses ${withPhotos} photos`}` : ''}. Cette action est irréversible.
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

function confirmDiscardPhoto(): Promise<boolean> {
  return new Promise((resolve) => {
    modals.openConfirmModal({
      title: 'Supprimer cette photo ?',
      children: (
        <Text size="sm">
          Cette photo n’a pas été enregistrée par le serveur : elle sera définitivement perdue. L’intervention reste enregistrée. Cette action est
          irréversible.
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
  const photos = useOutboxPhotos();
  const userId = useSessionStore((s) => s.id);
  const typeActions = useQuery(typeActionsQuery());
  const constantes = useQuery(constantesQuery());
  const offline = useIsOffline();
  const navigate = useNavigate();
  const [sending, setSending] = useState(false);
  const [showSent, setShowSent] = useState(false);
  const sent = useSentEntries(userId);
  const sites = useCachedSites([...(entries ?? []), ...(sent ?? [])].flatMap((e) => (isBilanEntry(e) ? [] : [e.payload.site])));

  const sendNow = async (reason: DrainReason = 'button') => {
    // The browser knows it has no network: trying would only fail, say why instead.
    if (typeof navigator !== 'undefined' && !navigator.onLine) {
      notifications.show({ id: 'outbox-no-network', color: 'gray', autoClose: 6000, message: NO_NETWORK_SEND_MESSAGE });
      return;
    }
    setSending(true);
    try {
      const report = await drainNow(reason);
      if (!report) return;
      // 'N saisie(s) envoyée(s)' is the shell's (field-entry.setup.tsx), whatever started the drain.
      if ((report.photos?.sent.length ?? 0) > 0) notifications.show({ color: 'green', autoClose: 3000, message: `${report.photos!.sent.length} photo(s) envoyée(s)` });
      if ((report.photos?.failed.length ?? 0) > 0) {
        notifications.show({ color: 'red', autoClose: 10_000, message: `${report.photos!.failed.length} photo(s) refusée(s) par le serveur : vous pouvez les supprimer.` });
      }
      if (report.retryLater) {
        const server = useConnectivityStore.getState().cause === 'server';
        notifications.show({ color: 'gray', autoClose: 6000, message: server ? SERVER_RETRY_MESSAGE : NETWORK_RETRY_MESSAGE });
      }
      if (report.failed.length > 0) notifications.show({ color: 'red', autoClose: 10_000, message: `${report.failed.length} saisie(s) refusée(s) par le serveur : corrigez-les ou supprimez-les.` });
      if (report.serverErrors.length > 0) {
        notifications.show({ color: 'red', autoClose: 10_000, message: `${report.serverErrors.length} saisie(s) en erreur sur le serveur : elles restent sur le téléphone.` });
      }
    } finally {
      setSending(false);
    }
  };

  const resend = async (entry: AnyOutboxEntry) => {
    await (await appOutbox()).resend(entry.clientId);
    await sendNow('resend');
  };

  const discard = async (entry: AnyOutboxEntry) => {
    const count = (photos ?? []).filter((p) => p.entryId === entry.clientId).length;
    if (await confirmDiscard(count)) await discardEntry(entry.clientId);
  };

  const resendPhoto = async (photo: OutboxPhoto) => {
    await (await appPhotoQueue()).resend(photo.clientId);
    await sendNow('resend');
  };

  const discardPhoto = async (photo: OutboxPhoto) => {
    if (await confirmDiscardPhoto()) await (await appPhotoQueue()).discard(photo.clientId);
  };

  if (entries === undefined || photos === undefined || sent === undefined) {
    return <Loading label="Chargement…" />;
  }
  const mine = entries.filter((e) => e.ownerId === userId);
  const myPhotos = photos.filter((p) => p.ownerId === userId);
  const needsLogin = mine.some((e) => e.state === 'auth') || myPhotos.some((p) => p.state === 'auth');
  // Photos whose entry reached the server: they go on their own.
  const loosePhotos = photos.filter((p) => p.interventionId !== null);
  const photosOf = (entry: AnyOutboxEntry) => photos.filter((p) => p.entryId === entry.clientId && p.interventionId === null);

  return (
    <Stack maw={860} mx="auto" gap="md">
      <OfflineBanner />
      <Group justify="space-between" align="flex-end" gap="sm">
        <PageTitle size="h2">Envois en attente</PageTitle>
        <Button leftSection={<IconSend size={16} aria-hidden />} onClick={() => void sendNow()} loading={sending} disabled={mine.length + myPhotos.length === 0}>
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
      {photos.length > 0 && (
        <Text size="sm" c="dimmed">
          Photos à envoyer : {photosSummary(photos)}. Elles partent après leur saisie, une à une.
        </Text>
      )}
      {entries.length === 0 && loosePhotos.length === 0 ? (
        <Text c="dimmed">Aucun résultat</Text>
      ) : entries.length === 0 ? null : (
        <Stack gap="sm" component="ul" p={0} style={{ listStyle: 'none' }} aria-label="Saisies non envoyées">
          {entries.map((entry) => {
            const state = STATE_LABELS[entry.state];
            const own = entry.ownerId === userId;
            // Only interventions wait for one another (blockerOf): a tally processes no request.
            const blocker = entry.state === 'pending' ? (blockerOf(entry, entries) as InterventionOutboxEntry | undefined) : undefined;
            const head = entryHead(entry);
            return (
              <Card key={entry.clientId} withBorder component="li" padding="md" aria-label={head.label}>
                <Stack gap={6}>
                  <Group justify="space-between" wrap="nowrap" align="flex-start" gap="sm">
                    <div style={{ minWidth: 0, overflowWrap: 'anywhere' }}>
                      <Text fw={600}>{head.title}</Text>
                      <Text size="sm">{head.when}</Text>
                    </div>
                    <Badge color={state.color} style={BADGE_STYLE}>
                      {state.label}
                    </Badge>
                  </Group>
                  <List size="sm">
                    {isBilanEntry(entry)
                      ? bilanLines(entry.payload).map((line) => <List.Item key={line}>{line}</List.Item>)
                      : entry.payload.values.map((block, i) => (
                          <List.Item key={i}>{blockSummary(block, sites.get(entry.payload.site), typeActions.data ?? [], constantes.data ?? [])}</List.Item>
                        ))}
                  </List>
                  {!isBilanEntry(entry) && photosOf(entry).length > 0 && (
                    <Stack gap={4}>
                      <Text size="sm">{photosSummary(photosOf(entry))}, envoyées après la saisie</Text>
                      <QueuedThumbnails photos={photosOf(entry)} label={`Photos de la saisie du ${formatParisDateTime(entry.payload.date)}`} />
                    </Stack>
                  )}
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
                      {entry.state === 'failed' ? 'Motif du refus' : 'Dernière erreur'} : {entry.lastError}
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
                      <Button
                        size="xs"
                        onClick={() =>
                          void navigate(isBilanEntry(entry) ? permanencesPath(entry.bilan.site, entry.clientId) : `/admin/fiche/site/${entry.payload.site}?corriger=${entry.clientId}`)
                        }
                      >
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
      {loosePhotos.length > 0 && (
        <Stack gap="sm">
          <Title order={3} size="h4">
            Photos à envoyer
          </Title>
          <Stack gap="sm" component="ul" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Photos non envoyées">
            {loosePhotos.map((photo) => {
              const state = STATE_LABELS[photo.state];
              const own = photo.ownerId === userId;
              return (
                <Card key={photo.clientId} withBorder component="li" padding="sm" aria-label={`Photo de l’intervention n°${photo.interventionId}`}>
                  <Group justify="space-between" wrap="nowrap" align="flex-start" gap="sm">
                    <Group gap="sm" wrap="nowrap" align="flex-start">
                      <QueuedThumbnails photos={[photo]} label={`Photo de l’intervention n°${photo.interventionId}`} />
                      <div>
                        <Text size="sm" fw={600}>
                          Photo de l’intervention n°{photo.interventionId}
                        </Text>
                        <Text size="sm">{formatSize(photo.size)}</Text>
                        {photo.lastError && (
                          <Text size="sm" c={photo.state === 'failed' || photo.state === 'error' ? 'red' : 'dimmed'}>
                            Dernière erreur : {photo.lastError}
                          </Text>
                        )}
                        {photo.state === 'error' && (
                          <Text size="sm">Le serveur a échoué {MAX_FAILURES} fois sur cette photo : elle n’est plus renvoyée automatiquement.</Text>
                        )}
                      </div>
                    </Group>
                    <Badge color={state.color} style={BADGE_STYLE}>
                      {state.label}
                    </Badge>
                  </Group>
                  <Group gap="xs" justify="flex-end" mt={6}>
                    {own && (photo.state === 'failed' || photo.state === 'auth' || photo.state === 'error' || photo.failures > 0) && (
                      <Button size="xs" variant="light" onClick={() => void resendPhoto(photo)} disabled={sending}>
                        Renvoyer
                      </Button>
                    )}
                    <Button size="xs" variant="subtle" color="red" onClick={() => void discardPhoto(photo)} disabled={photo.state === 'sending'}>
                      Supprimer
                    </Button>
                  </Group>
                </Card>
              );
            })}
          </Stack>
        </Stack>
      )}
      {sent.length > 0 && (
        // Folded: what waits comes first; what the server already has is one tap away.
        <Stack gap="sm" component="section" aria-labelledby="outbox-sent-title">
          <Group justify="space-between" gap="xs">
            <Title order={3} size="h4" id="outbox-sent-title">
              Envoyées récemment
            </Title>
            <Button variant="subtle" size="compact-sm" aria-expanded={showSent} aria-controls="outbox-sent-list" onClick={() => setShowSent((v) => !v)}>
              {showSent ? 'Masquer' : `Afficher (${sent.length})`}
            </Button>
          </Group>
          <Text size="sm" c="dimmed">
            Vos {SENT_KEPT} dernières saisies reçues par le serveur, sur ce téléphone.
          </Text>
          {showSent && (
            <Stack gap="sm" component="ul" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Saisies envoyées" id="outbox-sent-list">
              {sent.map((receipt) =>
                isBilanEntry(receipt) ? (
                  <SentBilanCard key={receipt.clientId} receipt={receipt} />
                ) : (
                  <SentCard key={receipt.clientId} receipt={receipt} summary={(block) => blockSummary(block, sites.get(receipt.payload.site), typeActions.data ?? [], constantes.data ?? [])} />
                ),
              )}
            </Stack>
          )}
        </Stack>
      )}
    </Stack>
  );
}

/** How an entry is named on its card: an intervention by its site and date, a tally by its permanence. */
function entryHead(entry: AnyOutboxEntry): { title: string; when: string; label: string } {
  if (isBilanEntry(entry)) {
    const when = formatPermanenceWhen(entry.bilan.debut, entry.bilan.fin);
    return { title: bilanTitle(entry.siteLabel), when: `Permanence du ${when}`, label: `${bilanTitle(entry.siteLabel)}, ${when}` };
  }
  const date = formatParisDateTime(entry.payload.date);
  return { title: entry.siteLabel, when: `Intervention du ${date}`, label: `${entry.siteLabel}, ${date}` };
}

type InterventionReceipt = Exclude<SentReceipt, { bilan: object }>;

function SentBilanCard({ receipt }: { receipt: Extract<SentReceipt, { bilan: object }> }) {
  const when = formatPermanenceWhen(receipt.bilan.debut, receipt.bilan.fin);
  const payload = receipt.payload as Parameters<typeof bilanLines>[0];
  return (
    <Card withBorder component="li" padding="sm" aria-label={`${bilanTitle(receipt.siteLabel)}, ${when}, envoyé`}>
      <Stack gap={4}>
        <Group justify="space-between" wrap="nowrap" align="flex-start" gap="sm">
          <div style={{ minWidth: 0, overflowWrap: 'anywhere' }}>
            <Text size="sm" fw={600}>
              {bilanTitle(receipt.siteLabel)}
            </Text>
            <Text size="sm">Permanence du {when}</Text>
          </div>
          <Badge color="green" variant="light" style={BADGE_STYLE}>
            Envoyé
          </Badge>
        </Group>
        <List size="sm">
          {bilanLines(payload).map((line) => (
            <List.Item key={line}>{line}</List.Item>
          ))}
        </List>
        <Text size="xs" c="dimmed">
          Reçu par le serveur le {formatParisDateTime(new Date(receipt.sentAt).toISOString())}
        </Text>
      </Stack>
    </Card>
  );
}

function SentCard({ receipt, summary }: { receipt: InterventionReceipt; summary: (block: InterventionReceipt['payload']['values'][number]) => string }) {
  const date = formatParisDateTime(receipt.payload.date);
  return (
    <Card withBorder component="li" padding="sm" aria-label={`${receipt.siteLabel}, ${date}, envoyée`}>
      <Stack gap={4}>
        <Group justify="space-between" wrap="nowrap" align="flex-start" gap="sm">
          <div style={{ minWidth: 0, overflowWrap: 'anywhere' }}>
            <Text size="sm" fw={600}>
              {receipt.siteLabel}
            </Text>
            <Text size="sm">Intervention du {date}</Text>
          </div>
          <Badge color="green" variant="light" style={BADGE_STYLE}>
            Envoyée
          </Badge>
        </Group>
        <List size="sm">
          {receipt.payload.values.map((block, i) => (
            <List.Item key={i}>{summary(block)}</List.Item>
          ))}
        </List>
        <Text size="xs" c="dimmed">
          Reçue par le serveur le {formatParisDateTime(new Date(receipt.sentAt).toISOString())}
        </Text>
      </Stack>
    </Card>
  );
}
