// /admin/carte ('Carte des sites'): every active site with a position as a marker on a map,
// coloured and shaped by what waits there (open alerts, pending requests, nothing), grouped
// when zoomed out; beside the map (below it on a phone) the list of the sites, with those not
// placed yet under 'Sans position'. A marker or a list entry opens the site's card (its
// address, alerts, pending requests, its sheet and the board). The list is buttons, so the
// whole screen works with the keyboard and without the map's tiles (no network): the tiles
// are only the background.
import { useState } from 'react';
import { Alert, Grid, Group, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { can } from '../../../shared/permissions';
import type { CarteSite, MarkerState } from '../../../shared/schemas/map';
import { PageMessage } from '../../components/page-message';
import { PageTitle } from '../../components/page-title';
import { QueryState } from '../../components/query-state';
import { useSessionStore } from '../../session/session-store';
import { carteQuery } from './map.api';
import { SiteCard, addressLine } from './site-card';
import { SiteMap, isPlaced, type PlacedSite } from './site-map';
import { STATE_TITLES, SiteState } from './site-state';

export function MapPage() {
  const roles = useSessionStore((s) => s.roles);
  if (!can(roles, 'map.view')) return <PageMessage title="Accès non authorisé.">Cet écran est réservé aux administrateurs et aux prestataires.</PageMessage>;
  return <SitesMap canSeeRequests={can(roles, 'request.manage')} />;
}

function SitesMap({ canSeeRequests }: { canSeeRequests: boolean }) {
  const carte = useQuery(carteQuery());
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const [focus, setFocus] = useState<{ id: number; nonce: number } | null>(null);
  const isDesktop = useMediaQuery('(min-width: 62em)', true);

  const choose = (site: CarteSite) => {
    setSelectedId(site.id);
    if (isPlaced(site)) setFocus((f) => ({ id: site.id, nonce: (f?.nonce ?? 0) + 1 }));
  };
  const close = () => {
    const id = selectedId;
    setSelectedId(null);
    // Back to where the keyboard was: the site's entry in the list.
    if (id !== null) document.querySelector<HTMLElement>(`[data-site-entry="${id}"]`)?.focus();
  };

  return (
    <Stack maw={1400} mx="auto" gap="md">
      <PageTitle>Carte des sites</PageTitle>
      <QueryState queries={[carte]} detail="La carte des sites n’a pas pu être chargée.">
        {({ sites, tuiles }) => {
          if (sites.length === 0)
            return (
              <Alert color="gray" role="status">
                Aucun site actif
              </Alert>
            );
          const placed = sites.filter(isPlaced);
          const unplaced = sites.filter((s) => !isPlaced(s));
          const selected = sites.find((s) => s.id === selectedId) ?? null;
          return (
            <Grid gap="md">
              <Grid.Col span={{ base: 12, md: 8 }}>
                <Stack gap="xs">
                  {placed.length > 0 ? (
                    <SiteMap
                      sites={placed}
                      tuiles={tuiles}
                      selectedId={selectedId}
                      onSelect={(id) => setSelectedId(id)}
                      focus={focus}
                      height={isDesktop ? 'min(70vh, 720px)' : '55vh'}
                    />
                  ) : (
                    <Alert color="gray" role="status">
                      Aucun site n’a encore de position : ils sont listés sous « Sans position ».
                    </Alert>
                  )}
                  <Legend />
                </Stack>
              </Grid.Col>
              <Grid.Col span={{ base: 12, md: 4 }}>
                <Stack gap="md">
                  {selected && <SiteCard key={selected.id} site={selected} canSeeRequests={canSeeRequests} onClose={close} />}
                  <SiteList title={`Sites sur la carte (${placed.length})`} sites={placed} selectedId={selectedId} onChoose={choose} maxHeight={isDesktop ? '50vh' : undefined} />
                  {unplaced.length > 0 && <SiteList title="Sans position" sites={unplaced} selectedId={selectedId} onChoose={choose} />}
                </Stack>
              </Grid.Col>
            </Grid>
          );
        }}
      </QueryState>
    </Stack>
  );
}

const LEGEND: { state: MarkerState; sign: string }[] = [
  { state: 'alerte', sign: '!' },
  { state: 'demandes', sign: 'n' },
  { state: 'calme', sign: '✓' },
];

function Legend() {
  return (
    <Group gap="md" wrap="wrap" aria-label="Légende de la carte" role="group">
      {LEGEND.map(({ state, sign }) => (
        <Group key={state} gap={6} wrap="nowrap">
          <span className="compost-marker-shape is-small" data-state={state} aria-hidden="true">
            {sign}
          </span>
          <Text size="sm">{STATE_TITLES[state]}</Text>
        </Group>
      ))}
      <Group gap={6} wrap="nowrap">
        <span className="compost-cluster" style={{ width: 24, height: 24, fontSize: 11, borderWidth: 2 }} aria-hidden="true">
          3
        </span>
        <Text size="sm">Groupe de sites (zoomer)</Text>
      </Group>
    </Group>
  );
}

function SiteList({
  title,
  sites,
  selectedId,
  onChoose,
  maxHeight,
}: {
  title: string;
  sites: readonly (CarteSite | PlacedSite)[];
  selectedId: number | null;
  onChoose: (site: CarteSite) => void;
  maxHeight?: string;
}) {
  const id = `site-list-${title.startsWith('Sans') ? 'sans-position' : 'carte'}`;
  return (
    <section aria-labelledby={id}>
      <Title order={2} size="h5" id={id} mb={6}>
        {title}
      </Title>
      <div style={{ maxHeight, overflowY: maxHeight ? 'auto' : undefined }}>
        <ul style={{ listStyle: 'none', margin: 0, padding: 0 }} aria-labelledby={id}>
          {sites.map((site) => {
            const selected = site.id === selectedId;
            return (
              <li key={site.id}>
                <UnstyledButton
                  data-site-entry={site.id}
                  onClick={() => onChoose(site)}
                  aria-current={selected ? 'true' : undefined}
                  w="100%"
                  p="xs"
                  style={{
                    borderRadius: 'var(--mantine-radius-sm)',
                    background: selected ? 'var(--mantine-color-green-0)' : undefined,
                    borderLeft: `4px solid ${selected ? 'var(--mantine-color-green-8)' : 'transparent'}`,
                  }}
                >
                  <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
                    {site.nom}
                  </Text>
                  <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                    {addressLine(site)}
                  </Text>
                  <SiteState site={site} size="xs" />
                </UnstyledButton>
              </li>
            );
          })}
        </ul>
      </div>
    </section>
  );
}
