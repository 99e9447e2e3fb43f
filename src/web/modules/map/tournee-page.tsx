// /admin/tournee ('Tournée du jour'), for a provider's phone: the requests planned on a day
// (today in Paris unless another is picked) as an ordered route, each stop with its site, its
// address, the request (action, cell, due date) and its distance from the stop before, and the
// total. A stop is processed with 'Traiter' exactly as on the requests board (the site sheet
// opens with the request), reached with 'Itinéraire' (OpenStreetMap's directions from the stop
// before) or the phone's navigation app (a geo: link), and moved up or down by hand: the new
// order is saved for the day and the distances are recomputed at once on the phone. Requests of
// sites without a position are listed apart. The start point is the phone's position or a
// typed 'lat,lon', kept for the account. 'Imprimer' prints the route alone on one page.
// The route is kept on the phone with the board (offline/query-persist-keys.ts), so it reads
// without network after one visit, stamped with the time it was received.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { ActionIcon, Alert, Anchor, Badge, Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconPrinter } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { can } from '../../../shared/permissions';
import { formatParisDate, parisDayValue } from '../../../shared/dates';
import { MAP_MESSAGES, parseDepart, type Etape, type SansPosition, type Tournee } from '../../../shared/schemas/map';
import type { GeoPoint } from '../../../shared/route-planning';
import { DataAge } from '../../components/data-age';
import { PageMessage } from '../../components/page-message';
import { PageTitle } from '../../components/page-title';
import { QueryState } from '../../components/query-state';
import { NETWORK_ERROR_MESSAGE, readFailure } from '../../lib/api';
import { refusalMessage } from '../../lib/form';
import { notifyError, notifySuccess } from '../../lib/notify';
import { isOfflineNow, useIsOffline } from '../../offline/connectivity';
import { useSessionStore } from '../../session/session-store';
import { siteInfosQuery, type SheetNavigationState } from '../field-entry/public';
import { pendingQuery } from '../requests/public';
import { mapKeys, saveDepart, saveOrdre, tourneeQuery } from './map.api';
import { departText, formatKm, geoUri, moved, osmDirections, startOf, withOrder } from './tournee';

export const NOT_PENDING_MESSAGE = 'Cette demande n’est plus à faire : rechargez la tournée.';
export const OFFLINE_UNAVAILABLE_MESSAGE = 'Cette demande n’est pas gardée sur le téléphone : traitez-la au retour du réseau.';

/** The printed route: no top bar, no drawer, no buttons, no fields; small enough for one page. */
export const PRINT_CSS = `
.tournee-print-only { display: none; }
@media print {
  .tournee-print-only { display: block !important; }
  @page { size: A4 portrait; margin: 10mm; }
  .mantine-AppShell-header, .mantine-AppShell-navbar, .mantine-Notifications-root, .tournee-no-print { display: none !important; }
  .mantine-AppShell-main { padding: 0 !important; min-height: 0 !important; }
  .tournee-print { font-size: 9pt; gap: 4pt !important; }
  .tournee-print .tournee-stop { break-inside: avoid; page-break-inside: avoid; padding: 3pt 5pt !important; border-color: #999 !important; }
  .tournee-print * { font-size: 9pt !important; line-height: 1.25 !important; }
  .tournee-print h1 { font-size: 13pt !important; }
  .tournee-print h2 { font-size: 10pt !important; margin: 2pt 0 !important; }
}`;

const failureText = async (error: unknown) => {
  const failure = await readFailure(error);
  return failure.network ? NETWORK_ERROR_MESSAGE : refusalMessage(failure);
};

/**
 * The request behind a stop, as the board knows it (the same query, often already on the
 * phone): what its 'Traiter' prefills. Pages of the site's pending requests are read until it
 * is found; when the copy on the phone lacks it, the server is asked again if it can be.
 */
async function findRequest(client: QueryClient, siteId: number, requestId: number) {
  for (const fresh of [false, true]) {
    if (fresh && isOfflineNow()) return null;
    for (let page = 0; page < 50; page++) {
      const options = pendingQuery(page, siteId);
      // Without network, only what the phone kept: a fetch would wait for the network.
      if (isOfflineNow() && client.getQueryData(options.queryKey) === undefined) return undefined;
      const list = fresh ? await client.fetchQuery({ ...options, staleTime: 0 }) : await client.ensureQueryData(options);
      const found = list.demandesInterventions.find((d) => d.id === requestId);
      if (found) return found;
      if (list.demandesInterventions.length === 0 || (page + 1) * list.demandesInterventions.length >= list.count) break;
    }
  }
  return null;
}

/** An arrow drawn here: the icon set's arrows share a chunk with the data tables, which this phone screen does without. */
function Arrow({ up = false }: { up?: boolean }) {
  return (
    <svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden>
      <path d={up ? 'M12 19V5M6 11l6-6 6 6' : 'M12 5v14M6 13l6 6 6-6'} />
    </svg>
  );
}

export function TourneePage() {
  const roles = useSessionStore((s) => s.roles);
  if (!can(roles, 'route.view')) return <PageMessage title="Accès non authorisé.">Cet écran est réservé aux prestataires et aux administrateurs.</PageMessage>;
  return <RouteScreen />;
}

function RouteScreen() {
  const [date, setDate] = useState(() => parisDayValue(new Date())!);
  const tournee = useQuery(tourneeQuery(date));
  const offline = useIsOffline();
  const client = useQueryClient();
  const navigate = useNavigate();
  const [processing, setProcessing] = useState<number | null>(null);

  // The sites of the day ready on the phone: 'Traiter' must open their sheet without network.
  const data = tournee.data;
  useEffect(() => {
    if (!data || offline) return;
    for (const id of new Set([...data.etapes, ...data.sansPosition].map((s) => s.idSite))) {
      void client.prefetchQuery(pendingQuery(0, id));
      void client.prefetchQuery(siteInfosQuery(id));
    }
  }, [data, offline, client]);

  const process = async (stop: Etape | SansPosition) => {
    setProcessing(stop.idDemande);
    try {
      const request = await findRequest(client, stop.idSite, stop.idDemande);
      if (request === undefined) return notifyError(OFFLINE_UNAVAILABLE_MESSAGE);
      if (request === null) return notifyError(NOT_PENDING_MESSAGE);
      // The board's own prefill, loaded when first needed: it lives with the board's code, which
      // the route's first load does without (the service worker keeps it for offline use).
      const { requestPrefill } = await import('../requests/public');
      const state: SheetNavigationState = { demandes: [requestPrefill(request)] };
      void navigate(`/admin/fiche/site/${stop.idSite}`, { state });
    } catch (error) {
      notifyError(await failureText(error));
    } finally {
      setProcessing(null);
    }
  };

  return (
    <Stack maw={720} mx="auto" gap="md" className="tournee-print" data-testid="tournee">
      <style>{PRINT_CSS}</style>
      <Group justify="space-between" align="center" gap="sm" wrap="wrap">
        <Group gap="sm" align="center">
          <PageTitle>Tournée du jour</PageTitle>
          <DataAge updatedAt={tournee.dataUpdatedAt} show={data !== undefined && (offline || tournee.isRefetchError)} />
        </Group>
        <Button className="tournee-no-print" variant="default" leftSection={<IconPrinter size={16} aria-hidden />} onClick={() => window.print()} disabled={!data}>
          Imprimer
        </Button>
      </Group>

      {offline && data && (
        <Alert color="gray" variant="light" role="status" title="Hors ligne" className="tournee-no-print">
          Vous lisez la tournée gardée sur ce téléphone. L’ordre et le point de départ se modifient au retour du réseau.
        </Alert>
      )}

      <Group gap="sm" align="flex-end" wrap="wrap" className="tournee-no-print">
        <TextInput
          type="date"
          label="Jour"
          value={date}
          onChange={(e) => {
            const value = e.currentTarget.value;
            if (value) setDate(value);
          }}
          w={{ base: '100%', xs: 200 }}
        />
      </Group>
      <Text size="sm" fw={600} className="tournee-print-only">
        {formatParisDate(`${date}T12:00:00Z`)}
      </Text>

      <QueryState queries={[tournee]} detail="La tournée n’a pas pu être chargée.">
        {(t) => <RouteBody tournee={t} date={date} offline={offline} processing={processing} onProcess={(s) => void process(s)} />}
      </QueryState>
    </Stack>
  );
}

function RouteBody({
  tournee,
  date,
  offline,
  processing,
  onProcess,
}: {
  tournee: Tournee;
  date: string;
  offline: boolean;
  processing: number | null;
  onProcess: (stop: Etape | SansPosition) => void;
}) {
  const client = useQueryClient();
  const key = mapKeys.tournee(date);
  /** The move button to give the focus back to once the stops are drawn again. */
  const [refocus, setRefocus] = useState<{ id: number; dir: 'up' | 'down' } | null>(null);
  const buttons = useRef(new Map<string, HTMLButtonElement | null>());

  const reorder = useMutation({
    mutationKey: ['map', 'tournee', 'ordre'],
    mutationFn: saveOrdre,
    onMutate: async (body) => {
      await client.cancelQueries({ queryKey: key });
      const before = client.getQueryData<Tournee>(key);
      // An empty list goes back to the computed order: the server's to say, nothing to show before.
      if (before && body.demandes.length > 0) client.setQueryData<Tournee>(key, withOrder(before, body.demandes));
      return { before };
    },
    onError: async (error, _body, context) => {
      if (context?.before) client.setQueryData(key, context.before);
      notifyError(await failureText(error));
    },
    onSuccess: (answer) => notifySuccess(answer.message),
    onSettled: () => {
      // The server's figures once the last of a quick series of moves is saved.
      if (client.isMutating({ mutationKey: ['map', 'tournee', 'ordre'] }) <= 1) void client.invalidateQueries({ queryKey: key });
    },
  });

  useEffect(() => {
    if (!refocus) return;
    const own = buttons.current.get(`${refocus.id}-${refocus.dir}`);
    const other = buttons.current.get(`${refocus.id}-${refocus.dir === 'up' ? 'down' : 'up'}`);
    (own && !own.disabled ? own : other)?.focus();
    setRefocus(null);
  }, [refocus, tournee]);

  const move = (index: number, dir: 'up' | 'down') => {
    const ids = moved(
      tournee.etapes.map((e) => e.idDemande),
      index,
      dir === 'up' ? -1 : 1,
    );
    setRefocus({ id: tournee.etapes[index].idDemande, dir });
    reorder.mutate({ date, demandes: ids });
  };

  const start = startOf(tournee);
  const empty = tournee.etapes.length === 0 && tournee.sansPosition.length === 0;

  return (
    <Stack gap="md">
      <StartPoint tournee={tournee} offline={offline} />
      {empty ? (
        <Alert color="gray" role="status">
          Aucune demande programmée ce jour-là
        </Alert>
      ) : (
        <>
          {tournee.etapes.length > 0 && (
            <section aria-labelledby="tournee-etapes">
              <Group justify="space-between" align="baseline" mb="xs" wrap="wrap" gap="xs">
                <Title order={2} size="h4" id="tournee-etapes">
                  {tournee.etapes.length === 1 ? '1 étape' : `${tournee.etapes.length} étapes`}
                </Title>
                <Text fw={700} data-testid="distance-totale">
                  Distance totale : {formatKm(tournee.distanceTotaleKm)}
                </Text>
              </Group>
              {tournee.ordreManuel && (
                <Group gap="xs" mb="xs" wrap="wrap" className="tournee-no-print">
                  <Text size="sm" c="dimmed">
                    Ordre choisi à la main pour ce jour.
                  </Text>
                  <Button size="compact-sm" variant="subtle" disabled={offline} onClick={() => reorder.mutate({ date, demandes: [] })}>
                    Revenir à l’ordre calculé
                  </Button>
                </Group>
              )}
              <Stack component="ol" gap="sm" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
                {tournee.etapes.map((stop, i) => {
                  const previous: GeoPoint | null = i === 0 ? start : tournee.etapes[i - 1];
                  return (
                    <li key={stop.idDemande}>
                      <StopCard
                        stop={stop}
                        from={previous}
                        first={i === 0}
                        fromStart={start !== null}
                        processing={processing === stop.idDemande}
                        onProcess={() => onProcess(stop)}
                        actions={
                          <Group gap={4} wrap="nowrap">
                            <ActionIcon
                              variant="default"
                              size="lg"
                              aria-label={`Monter l’étape ${stop.ordre} (${stop.site})`}
                              disabled={i === 0 || offline}
                              onClick={() => move(i, 'up')}
                              ref={(el) => void buttons.current.set(`${stop.idDemande}-up`, el)}
                            >
                              <Arrow up />
                            </ActionIcon>
                            <ActionIcon
                              variant="default"
                              size="lg"
                              aria-label={`Descendre l’étape ${stop.ordre} (${stop.site})`}
                              disabled={i === tournee.etapes.length - 1 || offline}
                              onClick={() => move(i, 'down')}
                              ref={(el) => void buttons.current.set(`${stop.idDemande}-down`, el)}
                            >
                              <Arrow />
                            </ActionIcon>
                          </Group>
                        }
                      />
                    </li>
                  );
                })}
              </Stack>
            </section>
          )}
          {tournee.sansPosition.length > 0 && (
            <section aria-labelledby="tournee-sans-position">
              <Title order={2} size="h4" id="tournee-sans-position" mb={4}>
                Sans position
              </Title>
              <Text size="sm" c="dimmed" mb="xs">
                Ces sites n’ont pas encore de position : ils ne sont pas dans l’ordre de la tournée.
              </Text>
              <Stack component="ul" gap="sm" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
                {tournee.sansPosition.map((stop) => (
                  <li key={stop.idDemande}>
                    <StopCard stop={stop} processing={processing === stop.idDemande} onProcess={() => onProcess(stop)} />
                  </li>
                ))}
              </Stack>
            </section>
          )}
        </>
      )}
    </Stack>
  );
}

function StopCard({
  stop,
  from,
  first = false,
  fromStart = false,
  processing,
  onProcess,
  actions,
}: {
  stop: Etape | SansPosition;
  from?: GeoPoint | null;
  first?: boolean;
  fromStart?: boolean;
  processing: boolean;
  onProcess: () => void;
  actions?: ReactNode;
}) {
  const placed = 'ordre' in stop ? stop : null;
  const name = placed ? `Étape ${placed.ordre} : ${stop.site}` : `${stop.site} (sans position)`;
  const distance = placed ? (first && !fromStart ? 'Première étape' : `${formatKm(placed.distanceKm)} depuis ${first ? 'le départ' : 'l’étape précédente'}`) : null;
  return (
    <Card withBorder radius="md" padding="sm" component="article" aria-label={name} className="tournee-stop" data-testid={placed ? 'tournee-etape' : 'tournee-sans-position'}>
      <Stack gap={4}>
        <Group gap="xs" wrap="nowrap" align="flex-start">
          {placed && (
            <Badge size="lg" circle variant="filled" style={{ flex: 'none' }} aria-hidden>
              {placed.ordre}
            </Badge>
          )}
          <Stack gap={0} style={{ minWidth: 0, flex: 1 }}>
            <Text fw={700} style={{ overflowWrap: 'anywhere' }}>
              {stop.site}
            </Text>
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {stop.adresse}
            </Text>
          </Stack>
        </Group>
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {stop.action} : {stop.cellule}
        </Text>
        <Text size="sm">Échéance : {formatParisDate(stop.dateEcheance)}</Text>
        {distance && (
          <Text size="sm" fw={600} data-testid="distance">
            {distance}
          </Text>
        )}
        <Group gap="xs" mt={4} wrap="wrap" justify="space-between" className="tournee-no-print">
          <Group gap="xs" wrap="wrap">
            <Button size="sm" onClick={onProcess} loading={processing}>
              Traiter
            </Button>
            {placed && (
              <>
                <Button size="sm" variant="light" component="a" href={osmDirections(from && !(first && !fromStart) ? from : null, placed)} target="_blank" rel="noopener noreferrer">
                  Itinéraire
                </Button>
                <Anchor size="sm" href={geoUri(placed)}>
                  Ouvrir dans le GPS
                </Anchor>
              </>
            )}
          </Group>
          {actions}
        </Group>
      </Stack>
    </Card>
  );
}

/** The start point: the phone's position or a typed 'lat,lon', saved for the account; or none (the first stop). */
function StartPoint({ tournee, offline }: { tournee: Tournee; offline: boolean }) {
  const client = useQueryClient();
  const saved = startOf(tournee);
  const [text, setText] = useState(saved ? departText(saved) : '');
  const [error, setError] = useState<string | null>(null);
  const [locating, setLocating] = useState(false);

  const save = useMutation({
    mutationFn: saveDepart,
    onSuccess: async (answer) => {
      notifySuccess(answer.message);
      await client.invalidateQueries({ queryKey: mapKeys.tournees });
    },
    onError: async (e) => notifyError(await failureText(e)),
  });

  const submit = () => {
    const point = parseDepart(text);
    if (!point) return setError(MAP_MESSAGES.departInvalid);
    setError(null);
    save.mutate({ depart: point });
  };
  const clear = () => {
    setText('');
    setError(null);
    save.mutate({ depart: null });
  };
  const locate = () => {
    if (!('geolocation' in navigator)) return setError('La position du téléphone n’est pas disponible : saisissez latitude,longitude.');
    setLocating(true);
    navigator.geolocation.getCurrentPosition(
      (position) => {
        setLocating(false);
        const round = (n: number) => Math.round(n * 1e5) / 1e5;
        setText(departText({ latitude: round(position.coords.latitude), longitude: round(position.coords.longitude) }));
        setError(null);
      },
      () => {
        setLocating(false);
        setError('La position du téléphone n’a pas pu être lue : autorisez-la ou saisissez latitude,longitude.');
      },
      { enableHighAccuracy: true, timeout: 15_000, maximumAge: 60_000 },
    );
  };

  return (
    <Card withBorder radius="md" padding="sm" className="tournee-no-print">
      <Stack gap="xs">
        <Text size="sm" data-testid="depart">
          Départ : {saved ? `${departText(saved)}${tournee.depart?.source === 'demande' ? '' : ' (enregistré)'}` : 'la première étape'}
        </Text>
        <TextInput
          label="Point de départ"
          description="latitude,longitude (ex. 48.39,-4.49)"
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          error={error}
          inputMode="decimal"
          disabled={offline}
        />
        <Group gap="xs" wrap="wrap">
          <Button size="sm" variant="light" onClick={locate} loading={locating} disabled={offline}>
            Ma position
          </Button>
          <Button size="sm" onClick={submit} loading={save.isPending && save.variables?.depart !== null} disabled={offline}>
            Enregistrer le départ
          </Button>
          <Button size="sm" variant="default" onClick={clear} disabled={offline || (!saved && text === '')}>
            Effacer le départ
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
