// /admin/choix/site ('Choix du site'): the sites the server lets this user work on
// (everyone for admins and providers, their own sites for referents), grouped by city. Works
// offline from the last list kept on the phone, and says so only where the phone can work
// offline (offline/capability.ts: not over plain http).
import { useMemo, useState } from 'react';
import { Anchor, Center, Group, Loader, Paper, Select, Stack, Text, type ComboboxItem, type ComboboxItemGroup } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, Navigate, useNavigate } from 'react-router';
import { activeSitesQuery } from '../../session/bootstrap.api';
import { useSessionStore } from '../../session/session-store';
import type { ActiveSite } from '../../../shared/schemas/site-choice';
import { useOfflineSyncedAt, useOutboxCounts } from '../../offline/hooks';
import { useIsOffline } from '../../offline/connectivity';
import { offlineUnavailableMessage } from '../../offline/capability';
import { DataAge } from '../../components/data-age';
import { OfflineBanner } from './offline-banner';
import { siteLabel } from '../../lib/labels';
import { OUTBOX_PATH, siteSheetPath } from './field-entry-paths';
import { formatParisDateTime } from '../../../shared/dates';
import { PageTitle } from '../../components/page-title';

/** Select data grouped by city, cities and labels in French alphabetical order. */
export function groupSitesByVille(sites: readonly ActiveSite[]): ComboboxItemGroup<ComboboxItem>[] {
  const byVille = new Map<string, ActiveSite[]>();
  for (const site of sites) byVille.set(site.ville, [...(byVille.get(site.ville) ?? []), site]);
  const collator = new Intl.Collator('fr', { numeric: true });
  return [...byVille.entries()]
    .sort(([a], [b]) => collator.compare(a, b))
    .map(([ville, list]) => ({
      group: ville,
      items: list.map((s) => ({ value: String(s.id), label: siteLabel(s) })).sort((a, b) => collator.compare(a.label, b.label)),
    }));
}

export function SiteChoicePage() {
  const userId = useSessionStore((s) => s.id);
  const sites = useQuery({ ...activeSitesQuery(userId ?? 0), enabled: userId !== null });
  const navigate = useNavigate();
  const counts = useOutboxCounts();
  const syncedAt = useOfflineSyncedAt(userId);
  const offline = useIsOffline();
  const data = useMemo(() => groupSitesByVille(sites.data ?? []), [sites.data]);
  const [notKept] = useState(offlineUnavailableMessage);

  if (sites.isPending) {
    return (
      <Center py="xl" role="status" aria-live="polite">
        <Stack align="center" gap="sm">
          <Loader aria-hidden />
          <Text>Recherche d'un site lié à votre profil</Text>
        </Stack>
      </Center>
    );
  }
  if (sites.isError) {
    return (
      <Stack maw={640} mx="auto">
        <OfflineBanner />
        <Text c="red" role="alert">
          La liste de vos sites n'a pas pu être chargée. Vérifiez votre connexion puis réessayez.
        </Text>
        <Anchor component="button" type="button" onClick={() => void sites.refetch()}>
          Réessayer
        </Anchor>
      </Stack>
    );
  }
  if (sites.data.length === 1) return <Navigate to={siteSheetPath(sites.data[0].id)} replace />;

  return (
    <Stack maw={640} mx="auto" gap="md">
      <OfflineBanner />
      {offline && (
        <Group>
          <DataAge updatedAt={sites.dataUpdatedAt} show />
        </Group>
      )}
      {sites.data.length === 0 ? (
        <Text>Vous n'avez aucun site de compostage collectif lié à votre profil.</Text>
      ) : (
        <Paper withBorder p="md" radius="md">
          <Stack gap="sm">
            <PageTitle size="h3">Choisir le site de votre intervention</PageTitle>
            <Select
              label="Site"
              placeholder="Rechercher un site (code, adresse, nom)"
              data={data}
              searchable
              nothingFoundMessage="Aucun résultat"
              maxDropdownHeight={360}
              onChange={(value) => {
                if (value) void navigate(siteSheetPath(Number(value)));
              }}
            />
            {notKept !== null ? (
              <Text size="sm" c="orange.9" data-testid="offline-unavailable">
                {notKept}
              </Text>
            ) : (
              syncedAt !== null && (
                <Text size="sm" c="dimmed">
                  Vos sites sont disponibles hors ligne (mis à jour le {formatParisDateTime(new Date(syncedAt).toISOString())}).
                </Text>
              )
            )}
          </Stack>
        </Paper>
      )}
      {counts.pending + counts.failed > 0 && (
        <Anchor component={Link} to={OUTBOX_PATH}>
          Voir les saisies en attente d'envoi
        </Anchor>
      )}
    </Stack>
  );
}
