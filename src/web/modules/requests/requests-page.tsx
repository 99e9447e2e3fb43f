// /admin/demande/intervention/list (the board of pending intervention requests): cards of
// the pending requests, 20 a page by site name, a site filter, and Programmer / Annuler /
// Traiter on a selection of one site's requests. Traiter opens the site sheet with one block
// per request through the navigation state, so it works with no signal once the board is shown.
// A card says how many entries called for its request and the latest one's value, shows the
// photos of those entries, and how many days an overdue request is late. Without network, the
// board kept on the phone shows with the time it was received.
// Providers work from phones: at 390 px nothing scrolls sideways, the status badge keeps its
// width, and the buttons wrap onto another line rather than cut their label ('Programmer (2)').
import { lazy, Suspense, useEffect, useState, type CSSProperties } from 'react';
import { Alert, Badge, Button, Card, Center, Checkbox, Group, Pagination, Select, SimpleGrid, Stack, Tabs, Text } from '@mantine/core';
import { Loading, QueryState } from '../../components/query-state';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearchParams } from 'react-router';
import { can } from '../../../shared/permissions';
import { STATUT_PROGRAMMEE } from '../../../shared/domain';
import { formatParisDate, parisDayValue } from '../../../shared/dates';
import { overdueLabel, planningWindow, type DemandeIntervention } from '../../../shared/schemas/requests';
import { useSessionStore } from '../../session/session-store';
import { DataAge } from '../../components/data-age';
import { PageMessage } from '../../components/page-message';
import { useIsOffline } from '../../offline/connectivity';
import { notifyError } from '../../lib/notify';
import { InterventionPhotos } from '../interventions/public';
import { siteInfosQuery, type SheetNavigationState } from '../field-entry/public';
import { CancelDialog } from './cancel-dialog';
import { HistoryDialog } from './history-dialog';
import { PUBLIC_REPORT, requestAuthor } from './history-cards';
import { PAGE_SIZE, pendingQuery, pendingSitesQuery } from './requests.api';
import { ScheduleDialog } from './schedule-dialog';
import { requestPrefill } from './request-prefill';
import { frenchValue } from '../../lib/format';
import { PageTitle } from '../../components/page-title';

// The anonymous reports of the sites' public pages, for those who handle them (its own chunk).
const ReportsPanel = lazy(() => import('../public-sites/public').then((m) => ({ default: m.ReportsPanel })));

export const ONE_SITE_MESSAGE = 'Vous ne pouvez sélectionner que des demandes d’un même site';
const URGENT_MS = 3 * 24 * 3600 * 1000;
/** The due date is red when fewer than 3 days away (overdue too), as the contract says. */
export const isUrgent = (dateEcheance: string, now = Date.now()) => new Date(dateEcheance).getTime() - now < URGENT_MS;

/** Whole days an overdue request is late (Paris days), 0 when it is not. */
export function overdueDays(d: Pick<DemandeIntervention, 'dateEcheance' | 'delaiJours'>, now = new Date()): number {
  return planningWindow(parisDayValue(d.dateEcheance)!, parisDayValue(now)!, d.delaiJours).overdueDays;
}

/** 'Signalée 3 fois, dernière fois le 12/05/2026 : Plein', for a request called for more than once. */
export function signalsLabel(d: Pick<DemandeIntervention, 'nbSignalements' | 'dernierSignalement'>): string | null {
  if (d.nbSignalements < 2 || !d.dernierSignalement) return null;
  const latest = d.dernierSignalement;
  return `Signalée ${d.nbSignalements} fois, dernière fois le ${formatParisDate(latest.date)}${latest.valeur ? ` : ${frenchValue(latest.valeur)}` : ''}`;
}

/** What a card's photos show, for screen readers: 'Réparation à effectuer, cellule n°1, Jardin des Capucins'. */
export function photosSubject(d: Pick<DemandeIntervention, 'actionDeclenchante' | 'actionProgrammee' | 'numero' | 'site'>): string {
  // The trigger's action, or the work to do when the trigger was deleted.
  return `${d.actionDeclenchante ?? d.actionProgrammee}, cellule n°${d.numero}, ${d.site}`;
}

/** A site id from the address ('?site=5'); anything else is no filter. */
export function siteParam(value: string | null): number | null {
  return value && /^[1-9]\d{0,9}$/.test(value) && Number(value) <= 2147483647 ? Number(value) : null;
}

export function RequestsPage() {
  const roles = useSessionStore((s) => s.roles);
  if (!can(roles, 'request.manage')) return <PageMessage title="Accès non authorisé.">Cet écran est réservé aux prestataires et aux administrateurs.</PageMessage>;
  return <RequestsBoard showReports={can(roles, 'signalement.handle')} />;
}

type Dialog = 'cancel' | 'schedule' | 'history' | null;

/** A badge keeps the width of its label (a flex item with hidden overflow would otherwise shrink and cut it). */
const NO_SHRINK: CSSProperties = { flex: 'none' };
/** The card's buttons share a line when their labels fit, and wrap onto the next one when not: never cut. */
const GROW: CSSProperties = { flex: '1 0 auto' };

function RequestsBoard({ showReports }: { showReports: boolean }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(0);
  // '?site=5' opens the board on one site (the map's site card links there).
  const [searchParams] = useSearchParams();
  const [site, setSite] = useState<number | null>(() => siteParam(searchParams.get('site')));
  const [selected, setSelected] = useState<DemandeIntervention[]>([]);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [acting, setActing] = useState<DemandeIntervention[]>([]);
  const list = useQuery(pendingQuery(page, site));
  const sites = useQuery(pendingSitesQuery());
  const offline = useIsOffline();
  const cards = list.data?.demandesInterventions;

  // Keep the sites of the board ready on the phone: 'Traiter' must open their sheet offline.
  useEffect(() => {
    for (const id of new Set((cards ?? []).map((d) => d.idSite))) void queryClient.prefetchQuery(siteInfosQuery(id));
  }, [cards, queryClient]);

  const toggle = (d: DemandeIntervention, checked: boolean) => {
    if (!checked) return setSelected((s) => s.filter((x) => x.id !== d.id));
    if (selected.length > 0 && selected[0].idSite !== d.idSite) return notifyError(ONE_SITE_MESSAGE);
    setSelected((s) => [...s, d]);
  };

  /** A card's button acts on the selection when that card is in it, else on the card alone. */
  const open = (kind: Exclude<Dialog, 'history' | null>, d: DemandeIntervention) => {
    const target = selected.some((x) => x.id === d.id) ? selected : [d];
    setActing(target);
    setDialog(kind);
  };

  const process = (d: DemandeIntervention) => {
    const target = selected.some((x) => x.id === d.id) ? selected : [d];
    const state: SheetNavigationState = { demandes: target.map(requestPrefill) };
    void navigate(`/admin/fiche/site/${d.idSite}`, { state });
  };

  const done = () => {
    setDialog(null);
    setSelected([]);
  };

  const count = selected.length;
  const label = (text: string, d: DemandeIntervention) => (count > 1 && selected.some((x) => x.id === d.id) ? `${text} (${count})` : text);
  const siteOptions = (sites.data ?? []).map((s) => ({ value: String(s.id), label: `${s.site} (${s.count})` }));

  const board = (
    <Stack gap="md">
      <QueryState queries={[list]} />
      {cards && cards.length === 0 && (
        <Alert color="gray" role="status">
          Aucune demande en attente
        </Alert>
      )}

      {cards && cards.length > 0 && (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
          {cards.map((d) => {
            const isSelected = selected.some((x) => x.id === d.id);
            const urgent = isUrgent(d.dateEcheance);
            const late = overdueDays(d);
            const signals = signalsLabel(d);
            const author = requestAuthor(d);
            const planner = d.programmationReferent ?? d.programmationAgent;
            return (
              <Card key={d.id} withBorder radius="md" padding="md" component="article" aria-label={`Demande ${d.id}`} data-testid="request-card">
                <Stack gap={6}>
                  <Group justify="space-between" wrap="nowrap" align="flex-start" gap="xs">
                    <Checkbox
                      checked={isSelected}
                      onChange={(e) => toggle(d, e.currentTarget.checked)}
                      label={
                        <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                          A faire : {d.actionProgrammee}
                        </Text>
                      }
                      aria-label={`Sélectionner la demande ${d.actionProgrammee} sur ${d.site}`}
                      style={{ flex: 1, minWidth: 0 }}
                    />
                    <Badge color={d.idStatut === STATUT_PROGRAMMEE ? 'blue' : 'gray'} variant="light" style={NO_SHRINK}>
                      {d.statut}
                    </Badge>
                  </Group>
                  <Text size="sm" c={urgent ? 'red' : undefined} fw={urgent ? 700 : undefined} data-urgent={urgent ? 'true' : 'false'}>
                    Echéance : {formatParisDate(d.dateEcheance)}
                  </Text>
                  {late > 0 && (
                    <Text size="sm" c="red" fw={700}>
                      {overdueLabel(late)}
                    </Text>
                  )}
                  {d.dateProgrammee && (
                    <Text size="sm">
                      Programmée le {formatParisDate(d.dateProgrammee)}
                      {planner ? ` par ${planner}` : ''}
                    </Text>
                  )}
                  <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                    Site : {d.site}
                  </Text>
                  {d.actionDeclenchante && (
                    <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                      {d.actionDeclenchante}
                      {d.value ? ` : ${d.value}` : ''} (cellule n°{d.numero})
                    </Text>
                  )}
                  {signals && (
                    <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
                      {signals}
                    </Text>
                  )}
                  <InterventionPhotos photos={d.photos} what={photosSubject(d)} />
                  {author && (
                    <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                      {author === PUBLIC_REPORT ? author : `Intervenant : ${author}`}
                    </Text>
                  )}
                  <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                    {d.adresse}
                  </Text>
                  <Group gap="xs" mt="xs" wrap="wrap">
                    <Button size="sm" variant="light" style={GROW} onClick={() => open('schedule', d)}>
                      {label('Programmer', d)}
                    </Button>
                    <Button size="sm" variant="light" color="red" style={GROW} onClick={() => open('cancel', d)}>
                      {label('Annuler', d)}
                    </Button>
                    <Button size="sm" style={GROW} onClick={() => process(d)}>
                      {label('Traiter', d)}
                    </Button>
                  </Group>
                </Stack>
              </Card>
            );
          })}
        </SimpleGrid>
      )}

      {list.data && list.data.count > PAGE_SIZE && (
        <Center>
          <Pagination total={Math.ceil(list.data.count / PAGE_SIZE)} value={page + 1} onChange={(p) => setPage(p - 1)} />
        </Center>
      )}

    </Stack>
  );

  return (
    <Stack maw={1200} mx="auto" gap="md">
      <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
        <Group gap="sm" align="center">
          <PageTitle size="h2">Demandes d’interventions</PageTitle>
          <DataAge updatedAt={list.dataUpdatedAt} show={list.data !== undefined && (offline || list.isRefetchError)} />
        </Group>
        <Group gap="sm" wrap="wrap" align="flex-end">
          <Select
            label="Site"
            placeholder="Tous les sites"
            clearable
            searchable
            data={siteOptions}
            value={site === null ? null : String(site)}
            onChange={(v) => {
              setSite(v === null ? null : Number(v));
              setPage(0);
              setSelected([]);
            }}
            w={{ base: '100%', xs: 280 }}
          />
          <Button variant="default" onClick={() => setDialog('history')}>
            Voir l'historique
          </Button>
        </Group>
      </Group>

      {showReports ? (
        <Tabs defaultValue="demandes" keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="demandes">Demandes</Tabs.Tab>
            <Tabs.Tab value="signalements">Signalements</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="demandes" pt="md">
            {board}
          </Tabs.Panel>
          <Tabs.Panel value="signalements" pt="md">
            <Suspense fallback={<Loading />}>
              <ReportsPanel />
            </Suspense>
          </Tabs.Panel>
        </Tabs>
      ) : (
        board
      )}

      <CancelDialog opened={dialog === 'cancel'} demandes={acting} onClose={() => setDialog(null)} onDone={done} />
      <ScheduleDialog opened={dialog === 'schedule'} demandes={acting} onClose={() => setDialog(null)} onDone={done} />
      <HistoryDialog opened={dialog === 'history'} onClose={() => setDialog(null)} />
    </Stack>
  );
}
