// The card of the site chosen on the map or in the list: where it is, what waits there (open
// alerts, and for those who run the board its pending requests, read from the board's own
// query), and the ways to act: its sheet, and the requests board.
import { useEffect, useRef } from 'react';
import { Alert, Anchor, Button, Card, CloseButton, Group, List, Loader, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { CarteSite } from '../../../shared/schemas/map';
import { formatParisDate } from '../../../shared/dates';
import { pendingQuery } from '../requests/public';
import { SiteState } from './site-state';

export const BOARD_PATH = '/admin/demande/intervention/list';
export const sheetPath = (siteId: number) => `/admin/fiche/site/${siteId}`;

/** '12 rue de Siam, Brest': the address line and the city, once each. */
export function addressLine(site: Pick<CarteSite, 'adresse' | 'ville'>): string {
  const adresse = site.adresse.trim();
  if (!site.ville || adresse.toLowerCase().includes(site.ville.toLowerCase())) return adresse || site.ville;
  return adresse ? `${adresse}, ${site.ville}` : site.ville;
}

export function SiteCard({ site, canSeeRequests, onClose }: { site: CarteSite; canSeeRequests: boolean; onClose: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // The card opens where the eye and the keyboard are sent: its title.
  useEffect(() => heading.current?.focus(), [site.id]);
  const titleId = `site-card-${site.id}`;
  return (
    <Card withBorder radius="md" padding="md" component="section" aria-labelledby={titleId} data-testid="site-card">
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" align="flex-start" gap="xs">
          <Title order={2} size="h4" id={titleId} ref={heading} tabIndex={-1} style={{ overflowWrap: 'anywhere', outline: 'none' }}>
            {site.nom}
          </Title>
          <CloseButton aria-label="Fermer la fiche du site" onClick={onClose} />
        </Group>
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {addressLine(site)}
        </Text>
        <SiteState site={site} />
        <Text size="sm">Alertes ouvertes : {site.alertes}</Text>
        {canSeeRequests ? <PendingRequests site={site} /> : <Text size="sm">Demandes en attente : {site.demandesEnAttente}</Text>}
        <Group gap="xs" mt="xs" wrap="wrap">
          <Button component={Link} to={sheetPath(site.id)} size="sm">
            Fiche du site
          </Button>
          {canSeeRequests && (
            <Button component={Link} to={`${BOARD_PATH}?site=${site.id}`} size="sm" variant="light">
              Tableau des demandes
            </Button>
          )}
        </Group>
      </Stack>
    </Card>
  );
}

function PendingRequests({ site }: { site: CarteSite }) {
  const pending = useQuery({ ...pendingQuery(0, site.id), enabled: site.demandesEnAttente > 0 });
  if (site.demandesEnAttente === 0) return <Text size="sm">Aucune demande en attente</Text>;
  if (pending.isError && !pending.data) {
    return (
      <Alert color="red" role="alert" p="xs">
        Les demandes du site n’ont pas pu être chargées.{' '}
        <Anchor component="button" type="button" size="sm" onClick={() => void pending.refetch()}>
          Réessayer
        </Anchor>
      </Alert>
    );
  }
  if (!pending.data) return <Loader size="sm" role="status" aria-label="Chargement des demandes" />;
  const { demandesInterventions: list, count } = pending.data;
  return (
    <Stack gap={4}>
      <Text size="sm" fw={600}>
        Demandes en attente : {count}
      </Text>
      <List size="sm" spacing={4} aria-label={`Demandes en attente de ${site.nom}`}>
        {list.map((d) => (
          <List.Item key={d.id}>
            <Text size="sm" span style={{ overflowWrap: 'anywhere' }}>
              {d.actionProgrammee}, cellule n°{d.numero} : échéance {formatParisDate(d.dateEcheance)} ({d.statut})
            </Text>
          </List.Item>
        ))}
      </List>
      {count > list.length && <Text size="sm">… et {count - list.length} autre(s) sur le tableau des demandes</Text>}
    </Stack>
  );
}
