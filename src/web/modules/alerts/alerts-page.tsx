// /admin/alertes 'Alertes': the open alerts the person follows (administrators: all; providers:
// requests; referents: their sites), newest first, with filters by kind and site (?site=12 from
// a digest's link), a link to the screen where each cause is dealt with, and acknowledging for
// administrators.
import { useMemo, useState } from 'react';
import { Anchor, Badge, Button, Group, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { can } from '../../../shared/permissions';
import { formatParisDateTime } from '../../../shared/dates';
import { ALERT_KINDS, ALERT_LABELS, type AlertKind, type AlertRow } from '../../../shared/schemas/alerts';
import { activeSitesQuery } from '../../session/bootstrap.api';
import { useSessionStore } from '../../session/session-store';
import { DataTable, type ListColumn } from '../../components/data-table';
import { PageMessage } from '../../components/page-message';
import { useListQuery } from '../../components/use-list-query';
import { readFailure } from '../../lib/api';
import { notifyError, notifySuccess } from '../../lib/notify';
import { ALERTS_LIST_URL, PREFERENCES_PATH, SETTINGS_PATH, acknowledgeAlert, alertsKeys } from './alerts.api';

type AlertFilter = { kind?: AlertKind | null; site?: string | null };

const KIND_OPTIONS = ALERT_KINDS.map((k) => ({ value: k, label: ALERT_LABELS[k] })).sort((a, b) => a.label.localeCompare(b.label, 'fr'));

export function AlertsPage() {
  const roles = useSessionStore((s) => s.roles);
  if (!can(roles, 'alert.view')) return <PageMessage title="Accès non authorisé.">Cet écran est réservé aux personnes qui suivent des sites.</PageMessage>;
  return <AlertsTable />;
}

function AlertsTable() {
  const roles = useSessionStore((s) => s.roles);
  const userId = useSessionStore((s) => s.id);
  const admin = can(roles, 'alert.settings');
  const [params] = useSearchParams();
  const initialSite = /^[1-9][0-9]{0,9}$/.test(params.get('site') ?? '') ? params.get('site') : null;
  const sites = useQuery({ ...activeSitesQuery(userId ?? 0), enabled: userId !== null });
  const queryClient = useQueryClient();
  const [acking, setAcking] = useState<number | null>(null);
  const list = useListQuery<AlertRow, AlertFilter>({
    queryKey: alertsKeys.list,
    url: ALERTS_LIST_URL,
    listKey: 'alertes',
    defaultSort: { name: 'dateOuverture', direction: 'desc' },
    initialFilter: { site: initialSite },
  });

  const acknowledge = async (alert: AlertRow) => {
    setAcking(alert.id);
    try {
      notifySuccess((await acknowledgeAlert(alert.id)).message);
      await queryClient.invalidateQueries({ queryKey: alertsKeys.all });
    } catch (e) {
      const failure = await readFailure(e);
      notifyError(failure.message && failure.status !== null && failure.status < 500 ? failure.message : undefined);
    } finally {
      setAcking(null);
    }
  };

  const siteOptions = useMemo(
    () => (sites.data ?? []).map((s) => ({ value: String(s.id), label: s.nom ? `${s.nom} (${s.code})` : s.code })).sort((a, b) => a.label.localeCompare(b.label, 'fr')),
    [sites.data],
  );

  const columns: ListColumn<AlertRow>[] = [
    { accessor: 'dateOuverture', title: 'Ouverte le', sortable: true, render: (a) => formatParisDateTime(a.dateOuverture) },
    { accessor: 'libelle', title: 'Type', sortable: true, sortKey: 'kind', filterBy: { type: 'select', name: 'kind', options: KIND_OPTIONS } },
    { accessor: 'site', title: 'Site', sortable: true, filterBy: { type: 'select', name: 'site', options: siteOptions } },
    { accessor: 'cellule', title: 'Cellule', render: (a) => (a.cellule === null ? '—' : `n°${a.cellule}`) },
    { accessor: 'message', title: 'Message', render: (a) => <Text size="sm">{a.message}</Text> },
    {
      accessor: 'actions',
      title: 'Que faire',
      render: (a) => (
        <Group gap="xs" wrap="nowrap">
          <Button component={Link} to={a.lien} size="xs" variant="light" aria-label={`Ouvrir : ${a.libelle}, ${a.site}`}>
            Ouvrir
          </Button>
          {a.acquittee ? (
            <Badge color="gray" variant="light">
              Acquittée
            </Badge>
          ) : (
            admin && (
              <Button size="xs" variant="default" loading={acking === a.id} onClick={() => void acknowledge(a)} aria-label={`Acquitter : ${a.libelle}, ${a.site}`}>
                Acquitter
              </Button>
            )
          )}
        </Group>
      ),
    },
  ];

  return (
    <DataTable
      title="Alertes"
      list={list}
      columns={columns}
      ariaLabel="Alertes ouvertes"
      toolbar={
        <Group gap="sm">
          <Anchor component={Link} to={PREFERENCES_PATH} size="sm">
            Alertes reçues par e-mail
          </Anchor>
          {admin && (
            <Anchor component={Link} to={SETTINGS_PATH} size="sm">
              Seuils d&apos;alerte
            </Anchor>
          )}
        </Group>
      }
    />
  );
}
