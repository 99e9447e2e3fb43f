// /admin/fiche/site/{id}/permanences, opened from the site sheet: the site's openings, made for
// a phone first. Each shows its day and hours in Paris time, its title, its openers, 'Annulée'
// with the reason; referents sign up ('Je tiens la permanence') or withdraw; whoever manages the
// site's permanences schedules one ('Programmer une permanence', once or repeated), cancels one
// with a reason, and records the tally of one that started ('Saisir le bilan'). The list is kept
// on the phone (offline/query-persist-keys.ts) and the tally goes through the outbox: at the bin
// without network, the referent still sees the permanence and records its tally, which leaves
// by itself when the network returns. A tally waiting on the phone shows on its permanence;
// one the server refused reopens here with `?bilan={clientId}` (the outbox page's 'Corriger').
import { useState, type ReactNode } from 'react';
import { Alert, Anchor, Badge, Button, Card, Group, List, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { HTTPError } from 'ky';
import { Link, useParams, useSearchParams } from 'react-router';
import { can } from '../../../shared/permissions';
import { formatParisDate } from '../../../shared/dates';
import { PERMANENCE_FREQUENCES, PERMANENCE_MESSAGES, type PermanenceRow } from '../../../shared/schemas/permanences';
import { AccessDenied } from '../../components/access-denied';
import { DataAge } from '../../components/data-age';
import { PageTitle } from '../../components/page-title';
import { Loading } from '../../components/query-state';
import { readFailure } from '../../lib/api';
import { siteLabel } from '../../lib/labels';
import { notifyError, notifySuccess } from '../../lib/notify';
import { useIsOffline } from '../../offline/connectivity';
import { useOutboxEntries } from '../../offline/hooks';
import { isBilanEntry, type BilanEntry } from '../../offline/outbox';
import { useSessionStore } from '../../session/session-store';
import { PageAlert, siteInfosQuery } from '../field-entry/public';
import { BilanDialog } from './bilan-dialog';
import { CancelDialog } from './cancel-dialog';
import { PermanenceFormDialog } from './permanence-form-dialog';
import { bilanLines, formatKg, formatPermanenceWhen } from './permanence-format';
import { permanenceKeys, permanencesQuery, signUp, withdraw, type Periode } from './permanences.api';
import { formatTemperature } from '../../lib/format';

export const EMPTY_UPCOMING = 'Aucune permanence programmée';
export const EMPTY_PAST = 'Aucune permanence passée';
export const OFFLINE_ACTIONS_NOTE = 'Hors ligne : le bilan peut être saisi, il sera envoyé au retour du réseau. Programmer, annuler ou s’inscrire demande le réseau.';

type Open = { kind: 'add' } | { kind: 'edit'; permanence: PermanenceRow } | { kind: 'cancel'; permanence: PermanenceRow } | { kind: 'bilan'; permanence: Pick<PermanenceRow, 'id' | 'idSite' | 'debut' | 'fin'>; entry: BilanEntry | null };

const frequenceLabel = (value: string) => PERMANENCE_FREQUENCES.find((f) => f.value === value)?.libelle ?? value;

export function PermanencesPage() {
  const params = useParams();
  const siteId = Number(params.id);
  const valid = Number.isInteger(siteId) && siteId > 0 && String(siteId) === params.id;
  const roles = useSessionStore((s) => s.roles);
  const userId = useSessionStore((s) => s.id);
  const [periode, setPeriode] = useState<Periode>('a_venir');
  const list = useQuery({ ...permanencesQuery(siteId, periode), enabled: valid });
  const infos = useQuery({ ...siteInfosQuery(siteId), enabled: valid });
  const entries = useOutboxEntries();
  const offline = useIsOffline();
  const [search, setSearch] = useSearchParams();
  const [open, setOpen] = useState<Open | null>(null);
  const queryClient = useQueryClient();

  const signing = useMutation({
    mutationFn: ({ permanence, join }: { permanence: PermanenceRow; join: boolean }) => (join ? signUp(permanence.id) : withdraw(permanence.id)),
    onSuccess: async (_answer, { join }) => {
      notifySuccess(join ? PERMANENCE_MESSAGES.signedUp : PERMANENCE_MESSAGES.withdrawn);
      await queryClient.invalidateQueries({ queryKey: permanenceKeys.all });
    },
    onError: async (error) => {
      const failure = await readFailure(error);
      // A 401 left for the login page, a 403 was told by the API client.
      if (failure.status === 401 || failure.status === 403) return;
      notifyError(failure.message && failure.status !== null && failure.status < 500 ? failure.message : undefined);
    },
  });

  if (!valid) return <PageAlert title="Permanences" text="Site introuvable" />;
  if (list.isError && list.data === undefined) {
    const status = list.error instanceof HTTPError ? list.error.response.status : null;
    if (status === 403) return <AccessDenied>Vous ne gérez pas les permanences de ce site. Vous restez connecté.</AccessDenied>;
    if (status === 404) return <PageAlert title="Permanences" text="Site introuvable" />;
  }

  const site = infos.data?.data;
  const label = site ? siteLabel(site) : `Site n°${siteId}`;
  const canManage = can(roles, 'permanence.manage');
  const isReferent = roles.includes('ROLE_USER');
  const tallies = (entries ?? []).filter((e): e is BilanEntry => isBilanEntry(e) && e.bilan.site === siteId && e.ownerId === userId);
  const correcting = search.get('bilan');
  const correctingEntry = correcting ? tallies.find((e) => e.clientId === correcting) ?? null : null;
  const now = Date.now();

  const closeDialog = () => {
    setOpen(null);
    if (correcting) {
      search.delete('bilan');
      setSearch(search, { replace: true });
    }
  };

  const dialog: Open | null =
    open ?? (correctingEntry ? { kind: 'bilan', permanence: { id: correctingEntry.bilan.permanence, idSite: siteId, debut: correctingEntry.bilan.debut, fin: correctingEntry.bilan.fin }, entry: correctingEntry } : null);

  return (
    <Stack maw={720} mx="auto" gap="md">
      <Stack gap={2}>
        <PageTitle>Permanences</PageTitle>
        <Text fw={600}>{label}</Text>
        <Anchor component={Link} to={`/admin/fiche/site/${siteId}`} size="sm">
          Retour à la fiche du site
        </Anchor>
      </Stack>
      {offline && (
        <Alert color="gray" variant="light" role="status">
          {OFFLINE_ACTIONS_NOTE}
        </Alert>
      )}
      <DataAge updatedAt={list.dataUpdatedAt} show={offline && list.data !== undefined} />
      {correcting && entries !== undefined && !correctingEntry && (
        <Alert color="orange" role="alert">
          Ce bilan n’est plus dans la file d’envoi : il a été envoyé ou supprimé.
        </Alert>
      )}
      <Group justify="space-between" gap="sm">
        <SegmentedControl
          aria-label="Période"
          value={periode}
          onChange={(v) => setPeriode(v as Periode)}
          data={[
            { value: 'a_venir', label: 'À venir' },
            { value: 'passees', label: 'Passées' },
          ]}
        />
        {canManage && (
          <Button onClick={() => setOpen({ kind: 'add' })} disabled={offline}>
            Programmer une permanence
          </Button>
        )}
      </Group>

      {list.data === undefined ? (
        list.isError ? (
          <Alert color="red" role="alert" title="Une erreur est survenue">
            <Stack gap="xs" align="flex-start">
              <Text size="sm">{offline ? 'Les permanences de ce site ne sont pas encore sur le téléphone : ouvrez cet écran une première fois avec du réseau.' : 'Les permanences n’ont pas pu être chargées.'}</Text>
              <Button size="xs" variant="light" color="red" onClick={() => void list.refetch()}>
                Réessayer
              </Button>
            </Stack>
          </Alert>
        ) : (
          <Loading label="Chargement des permanences" />
        )
      ) : list.data.permanences.length === 0 ? (
        <Text c="dimmed">{periode === 'a_venir' ? EMPTY_UPCOMING : EMPTY_PAST}</Text>
      ) : (
        <Stack gap="sm" component="ul" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Permanences du site">
          {list.data.permanences.map((p) => {
            const started = Date.parse(p.debut) <= now;
            const ended = Date.parse(p.fin) <= now;
            const queued = tallies.find((e) => e.bilan.permanence === p.id);
            return (
              <PermanenceCard
                key={p.id}
                permanence={p}
                queued={queued}
                actions={
                  <>
                    {!p.annulee && !ended && isReferent && !p.jeTiens && (
                      <Button size="xs" onClick={() => signing.mutate({ permanence: p, join: true })} loading={signing.isPending && signing.variables?.permanence.id === p.id} disabled={offline}>
                        Je tiens la permanence
                      </Button>
                    )}
                    {!p.annulee && !ended && p.jeTiens && (
                      <Button size="xs" variant="light" onClick={() => signing.mutate({ permanence: p, join: false })} loading={signing.isPending && signing.variables?.permanence.id === p.id} disabled={offline}>
                        Je ne la tiens plus
                      </Button>
                    )}
                    {canManage && !p.annulee && started && !p.bilan && !queued && (
                      <Button size="xs" onClick={() => setOpen({ kind: 'bilan', permanence: p, entry: null })}>
                        Saisir le bilan
                      </Button>
                    )}
                    {queued && queued.state === 'failed' && (
                      <Button size="xs" onClick={() => setOpen({ kind: 'bilan', permanence: p, entry: queued })}>
                        Corriger le bilan
                      </Button>
                    )}
                    {canManage && !p.annulee && !started && (
                      <Button size="xs" variant="light" onClick={() => setOpen({ kind: 'edit', permanence: p })} disabled={offline}>
                        Modifier
                      </Button>
                    )}
                    {canManage && !p.annulee && !started && (
                      <Button size="xs" variant="subtle" color="red" onClick={() => setOpen({ kind: 'cancel', permanence: p })} disabled={offline}>
                        Annuler
                      </Button>
                    )}
                  </>
                }
              />
            );
          })}
        </Stack>
      )}

      {dialog?.kind === 'add' && <PermanenceFormDialog siteId={siteId} onClose={closeDialog} />}
      {dialog?.kind === 'edit' && <PermanenceFormDialog siteId={siteId} permanence={dialog.permanence} onClose={closeDialog} />}
      {dialog?.kind === 'cancel' && <CancelDialog permanence={dialog.permanence} onClose={closeDialog} />}
      {dialog?.kind === 'bilan' && <BilanDialog key={dialog.entry?.clientId ?? dialog.permanence.id} permanence={dialog.permanence} siteLabel={label} entry={dialog.entry} onClose={closeDialog} />}
    </Stack>
  );
}

function PermanenceCard({ permanence: p, queued, actions }: { permanence: PermanenceRow; queued: BilanEntry | undefined; actions: ReactNode }) {
  const headingId = `permanence-${p.id}`;
  const when = formatPermanenceWhen(p.debut, p.fin);
  return (
    <Card withBorder component="li" padding="md" aria-labelledby={headingId}>
      <Stack gap={6}>
        <Group justify="space-between" wrap="nowrap" align="flex-start" gap="sm">
          <div style={{ minWidth: 0, overflowWrap: 'anywhere' }}>
            <Title order={2} size="h5" id={headingId}>
              {when}
            </Title>
            {p.titre && <Text fw={600}>{p.titre}</Text>}
          </div>
          <Group gap={4} justify="flex-end" style={{ flex: 'none' }}>
            {p.annulee && <Badge color="red">Annulée</Badge>}
            {p.apresCoup && (
              <Badge color="gray" variant="light">
                Non programmée
              </Badge>
            )}
            {p.jeTiens && !p.annulee && (
              <Badge color="green" variant="light">
                Vous la tenez
              </Badge>
            )}
          </Group>
        </Group>
        {p.annulee && p.motifAnnulation && <Text size="sm">Motif : {p.motifAnnulation}</Text>}
        {p.serie && (
          <Text size="sm" c="dimmed">
            {frequenceLabel(p.serie.frequence)}, jusqu’au {formatParisDate(`${p.serie.jusqua}T12:00:00Z`)}
          </Text>
        )}
        {p.message && (
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {p.message}
          </Text>
        )}
        {!p.annulee && (
          <Text size="sm" c={p.ouvreurs.length === 0 ? 'orange.8' : undefined}>
            {p.ouvreurs.length === 0 ? 'Aucun ouvreur pour le moment' : `Ouvreurs : ${p.ouvreurs.map((o) => o.nom).join(', ')}`}
          </Text>
        )}
        {p.bilan ? (
          <Stack gap={2} aria-label="Bilan">
            <Text size="sm" fw={600}>
              Bilan
            </Text>
            <List size="sm">
              <List.Item>Foyers reçus : {p.bilan.foyers}</List.Item>
              <List.Item>Seaux apportés : {p.bilan.seaux}</List.Item>
              <List.Item>
                Kilos : {formatKg(p.bilan.kg)}
                {p.bilan.kgEstime ? ' (estimé à partir des seaux)' : ' (pesés)'}
              </List.Item>
              {p.bilan.temperature !== null && <List.Item>Température : {formatTemperature(p.bilan.temperature)}</List.Item>}
            </List>
          </Stack>
        ) : (
          queued && (
            <Stack gap={2}>
              <Group gap="xs">
                <Text size="sm" fw={600}>
                  Bilan
                </Text>
                <Badge color={queued.state === 'failed' || queued.state === 'error' ? 'red' : 'yellow'} variant="light">
                  {queued.state === 'failed' ? 'Refusé' : queued.state === 'error' ? 'Erreur serveur' : 'En attente d’envoi'}
                </Badge>
              </Group>
              <List size="sm">
                {bilanLines(queued.payload).map((line) => (
                  <List.Item key={line}>{line}</List.Item>
                ))}
              </List>
              {queued.lastError && (
                <Text size="sm" c={queued.state === 'failed' || queued.state === 'error' ? 'red' : 'dimmed'}>
                  {queued.lastError}
                </Text>
              )}
              {queued.fieldErrors.length > 0 && (
                <List size="sm" c="red">
                  {queued.fieldErrors.map((e) => (
                    <List.Item key={e.key}>{e.error}</List.Item>
                  ))}
                </List>
              )}
            </Stack>
          )
        )}
        <Group gap="xs" justify="flex-end">
          {actions}
        </Group>
      </Stack>
    </Card>
  );
}
