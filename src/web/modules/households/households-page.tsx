// /admin/fiche/site/{id}/foyers, the 'Foyers' screen of a site, for its referents and the
// administrators (phone first, fine on a desk): how many households take part (confirmed) and
// how many people live in them; the households waiting for an answer first, each with
// 'Confirmer' and 'Refuser'; the others with their status; and 'Envoyer une nouvelle aux
// foyers', a short message to the confirmed households that take the site's news (one a day).
// Households are personal data: the server answers only the site's referents and the
// administrators, and this screen shows a refusal in place.
import { useState, type ReactNode } from 'react';
import { Anchor, Badge, Button, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { HTTPError } from 'ky';
import { Link, useParams } from 'react-router';
import { formatParisDate } from '../../../shared/dates';
import { FOYER_STATUTS, type FoyerRow } from '../../../shared/schemas/households';
import { AccessDenied } from '../../components/access-denied';
import { useConfirm } from '../../components/confirm-dialog';
import { PageMessage } from '../../components/page-message';
import { PageTitle } from '../../components/page-title';
import { QueryState } from '../../components/query-state';
import { isForbidden, readFailure } from '../../lib/api';
import { GENERIC_ERROR } from '../../lib/form';
import { notifyError, notifySuccess } from '../../lib/notify';
import { confirmHousehold, householdsKeys, householdsQuery, householdsSiteQuery, refuseHousehold } from './households.api';
import { NewsDialog } from './news-dialog';

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('fr-FR')} ${n > 1 ? many : one}`;

export function householdName(f: FoyerRow): string {
  return f.prenom ?? 'Foyer sans prénom';
}

export function HouseholdsPage() {
  const siteId = Number(useParams().id);
  const valid = Number.isInteger(siteId) && siteId > 0;
  const list = useQuery({ ...householdsQuery(siteId), enabled: valid });
  const site = useQuery({ ...householdsSiteQuery(siteId), enabled: valid });
  const [newsOpen, setNewsOpen] = useState(false);

  if (!valid || (list.error instanceof HTTPError && list.error.response.status === 404)) {
    return <PageMessage title="Site introuvable">Ce site n’existe pas ou n’est plus en service.</PageMessage>;
  }
  if (isForbidden(list.error)) return <AccessDenied>Seuls les référents du site et les administrateurs voient ses foyers.</AccessDenied>;

  const siteName = site.data ? (site.data.nom ? `${site.data.nom} (${site.data.code})` : site.data.code) : null;
  return (
    <Stack gap="md" maw={960}>
      <div>
        <PageTitle>Foyers</PageTitle>
        {siteName && (
          <Text c="dimmed" size="sm">
            {siteName}
          </Text>
        )}
        <Anchor component={Link} to={`/admin/fiche/site/${siteId}`} size="sm">
          Retour à la fiche du site
        </Anchor>
      </div>
      <QueryState queries={[list]} label="Chargement des foyers" detail="Les foyers du site n’ont pas pu être chargés.">
        {(data) => (
          <>
            <SimpleGrid cols={2} spacing="sm">
              <Figure value={data.confirmes} label={data.confirmes > 1 ? 'foyers confirmés' : 'foyer confirmé'} />
              <Figure value={data.personnes} label={data.personnes > 1 ? 'personnes' : 'personne'} />
            </SimpleGrid>
            <NewsBlock rows={data.foyers} onOpen={() => setNewsOpen(true)} />
            {data.foyers.length === 0 ? <Text>Aucun foyer inscrit</Text> : <HouseholdLists siteId={siteId} rows={data.foyers} />}
          </>
        )}
      </QueryState>
      <NewsDialog siteId={siteId} opened={newsOpen} onClose={() => setNewsOpen(false)} />
    </Stack>
  );
}

function Figure({ value, label }: { value: number; label: string }) {
  return (
    <Paper withBorder p="sm" radius="md">
      <Text fz={28} fw={700} lh={1.2}>
        {value.toLocaleString('fr-FR')}
      </Text>
      <Text size="sm">{label}</Text>
    </Paper>
  );
}

function NewsBlock({ rows, onOpen }: { rows: FoyerRow[]; onOpen: () => void }) {
  const subscribed = rows.filter((f) => f.statut === 'confirme' && f.email !== null && f.nouvelles).length;
  return (
    <Paper withBorder p="sm" radius="md">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{subscribed === 0 ? 'Aucun foyer confirmé ne reçoit les nouvelles du site.' : `${plural(subscribed, 'foyer confirmé reçoit', 'foyers confirmés reçoivent')} les nouvelles du site.`}</Text>
        <Button variant="light" onClick={onOpen}>
          Envoyer une nouvelle aux foyers
        </Button>
      </Stack>
    </Paper>
  );
}

function HouseholdLists({ siteId, rows }: { siteId: number; rows: FoyerRow[] }) {
  const queryClient = useQueryClient();
  const [confirm, confirmDialog] = useConfirm();
  const [busy, setBusy] = useState<number | null>(null);
  const waiting = rows.filter((f) => f.statut === 'en_attente');
  const others = rows.filter((f) => f.statut !== 'en_attente');

  const act = async (row: FoyerRow, call: (id: number) => Promise<{ message: string }>) => {
    setBusy(row.id);
    try {
      const done = await call(row.id);
      notifySuccess(done.message);
    } catch (e) {
      const failure = await readFailure(e);
      // A 403 was said by the API client; another refusal (409: handled meanwhile) in the server's words.
      if (failure.status !== 401 && failure.status !== 403) notifyError(failure.message && failure.status !== null && failure.status < 500 ? failure.message : GENERIC_ERROR);
    } finally {
      setBusy(null);
      await queryClient.invalidateQueries({ queryKey: householdsKeys.list(siteId) });
    }
  };

  return (
    <>
      <section aria-labelledby="foyers-waiting">
        <Title order={2} size="h4" id="foyers-waiting" mb="xs">
          À confirmer ({waiting.length})
        </Title>
        {waiting.length === 0 ? (
          <Text c="dimmed">Aucun foyer n’attend de réponse.</Text>
        ) : (
          <Stack gap="sm">
            {waiting.map((f) => (
              <HouseholdCard key={f.id} row={f}>
                <Group gap="sm" grow>
                  <Button loading={busy === f.id} disabled={busy !== null && busy !== f.id} onClick={() => void act(f, confirmHousehold)} aria-label={`Confirmer ${householdName(f)}`}>
                    Confirmer
                  </Button>
                  <Button
                    variant="default"
                    disabled={busy !== null}
                    aria-label={`Refuser ${householdName(f)}`}
                    onClick={() =>
                      confirm({
                        title: 'Refuser ce foyer ?',
                        message: 'Il ne comptera pas pour le site et ne recevra pas ses nouvelles ; son prénom et son adresse mail seront effacés.',
                        confirmLabel: 'Refuser',
                        cancelLabel: 'Annuler',
                        onConfirm: () => void act(f, refuseHousehold),
                      })
                    }
                  >
                    Refuser
                  </Button>
                </Group>
              </HouseholdCard>
            ))}
          </Stack>
        )}
      </section>
      {others.length > 0 && (
        <section aria-labelledby="foyers-others">
          <Title order={2} size="h4" id="foyers-others" mb="xs">
            Foyers traités ({others.length})
          </Title>
          <Stack gap="sm">
            {others.map((f) => (
              <HouseholdCard key={f.id} row={f} />
            ))}
          </Stack>
        </section>
      )}
      {confirmDialog}
    </>
  );
}

function HouseholdCard({ row: f, children }: { row: FoyerRow; children?: ReactNode }) {
  const name = householdName(f);
  return (
    <Paper withBorder p="sm" radius="md" component="article" aria-label={`Foyer ${name}`}>
      <Stack gap={6}>
        <Group justify="space-between" gap="xs" wrap="nowrap" align="flex-start">
          <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
            {name}
          </Text>
          <Badge color={f.statut === 'confirme' ? 'green' : f.statut === 'refuse' ? 'gray' : 'yellow'} variant="light" style={{ flex: 'none' }}>
            {FOYER_STATUTS[f.statut]}
          </Badge>
        </Group>
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {f.email ?? 'Pas d’adresse mail'}
          {f.email && !f.nouvelles ? ' · ne reçoit plus les nouvelles' : ''}
        </Text>
        <Text size="sm">
          {plural(f.personnes, 'personne', 'personnes')} · {f.bioseau ? 'bio-seau reçu' : 'pas de bio-seau'}
        </Text>
        <Text size="sm" c="dimmed">
          Inscrit le {formatParisDate(f.inscritLe)}
          {f.traiteLe ? ` · ${f.statut === 'confirme' ? 'confirmé' : 'refusé'} le ${formatParisDate(f.traiteLe)}` : ''}
        </Text>
        {children}
      </Stack>
    </Paper>
  );
}
