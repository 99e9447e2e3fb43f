// /admin/site: the 'Sites' table with its filters and CSV export, the row
// menu, and the dialogs (add, edit, referents, cells, requester, interventions).
// One line a row: long texts are cut with their whole value in a tooltip, and the row menu
// (the spec's first column) is pinned to the left, so it stays in view when the table scrolls
// sideways. Search, filters, sort and page size live in the URL.
import { useState } from 'react';
import { ActionIcon, Badge, Box, Button, Group, Menu, Text, Tooltip, VisuallyHidden } from '@mantine/core';
import { IconDotsVertical, IconDownload, IconEye, IconFileDescription, IconPencil, IconPlus, IconRecycle, IconUsers } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { SITE_STATUT, type SiteRow } from '../../../shared/schemas/sites';
import { DataTable, EllipsisText, type ListColumn } from '../../components/data-table';
import { useListQuery } from '../../components/use-list-query';
import { formatCount, formatLitres } from '../../lib/format';
import { RequesterDialog } from './requester-dialog';
import { SiteCellsDialog } from './site-cells-dialog';
import { formatParisDate } from '../../../shared/dates';
import { AddSiteDialog } from './site-form-dialog';
import { EditSiteDialog } from './edit-site-dialog';
import { SiteInterventionsDialog } from './site-interventions-dialog';
import { SiteReferentsDialog } from './site-referents-dialog';
import { exportSites, sitesKeys, siteStatutsQuery, villesQuery } from './sites.api';
import { BackupNotice } from '../backup/public';

type SiteFilter = { nom?: string; ville?: string[]; adresse?: string; type?: string; statut?: string[] };

const siteName = (s: SiteRow) => (s.nom ? `${s.nom} (${s.code})` : s.code);

export function SitesPage() {
  const villes = useQuery(villesQuery());
  const statuts = useQuery(siteStatutsQuery());
  const list = useListQuery<SiteRow, SiteFilter>({
    queryKey: sitesKeys.list,
    url: 'admin/site/get/list/by/filters',
    listKey: 'sites',
    defaultSort: { name: 'nom', direction: 'asc' },
    defaultRowsPerPage: 10,
    urlState: true,
  });
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<number | null>(null);
  const [referentsOf, setReferentsOf] = useState<number | null>(null);
  const [cellsOf, setCellsOf] = useState<SiteRow | null>(null);
  const [requesterId, setRequesterId] = useState<number | null>(null);
  const [interventionsOf, setInterventionsOf] = useState<SiteRow | null>(null);

  const villeOptions = [...new Set((villes.data ?? []).map((v) => v.nom))].map((nom) => ({ value: nom, label: nom }));
  const statutOptions = (statuts.data ?? []).map((s) => ({ value: String(s.id), label: s.libelle }));

  const columns: ListColumn<SiteRow>[] = [
    {
      accessor: 'actions',
      title: <VisuallyHidden>Actions</VisuallyHidden>,
      width: 56,
      pinned: 'left',
      render: (s) => (
        <Menu position="bottom-start" withinPortal>
          <Menu.Target>
            <ActionIcon variant="subtle" aria-label={`Actions du site ${siteName(s)}`}>
              <IconDotsVertical size={18} aria-hidden />
            </ActionIcon>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item leftSection={<IconEye size={16} aria-hidden />} onClick={() => setInterventionsOf(s)}>
              Voir les interventions
            </Menu.Item>
            <Menu.Item leftSection={<IconFileDescription size={16} aria-hidden />} disabled={s.idDemandeur === null} onClick={() => s.idDemandeur !== null && setRequesterId(s.idDemandeur)}>
              Détails demande
            </Menu.Item>
            <Menu.Item leftSection={<IconPencil size={16} aria-hidden />} onClick={() => setEditing(s.id)}>
              Modifier Site
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      ),
    },
    {
      accessor: 'nom',
      title: 'Nom / Code',
      sortable: true,
      // Wraps, never cut: two long names sharing their beginning stay apart, code included.
      width: 260,
      filterBy: { type: 'text', name: 'nom' },
      render: (s) => (
        <>
          {s.nom && (
            <>
              <Text span inherit>
                {s.nom}
              </Text>{' '}
            </>
          )}
          <Text span size="xs" c="dimmed" ff="monospace">
            {s.code}
          </Text>
        </>
      ),
    },
    { accessor: 'ville', title: 'Ville', sortable: true, width: 130, ellipsis: true, filterBy: { type: 'multiselect', name: 'ville', options: villeOptions } },
    {
      accessor: 'adresse',
      title: 'Adresse',
      sortable: true,
      width: 200,
      ellipsis: true,
      filterBy: { type: 'text', name: 'adresse' },
      render: (s) => (s.numero ? `${s.numero} ${s.adresse}` : s.adresse),
    },
    { accessor: 'complement', title: 'Précisions', sortable: true, width: 160, ellipsis: true },
    { accessor: 'typeSite', title: 'Type', sortable: true, width: 150, ellipsis: true, filterBy: { type: 'text', name: 'type' } },
    {
      accessor: 'referent',
      title: 'Référent(s)',
      sortable: true,
      width: 200,
      render: (s) => (
        <Group gap={4} wrap="nowrap">
          {s.idStatut === SITE_STATUT.actif && (
            <Tooltip label="Référent(s)">
              <ActionIcon variant="subtle" size="sm" aria-label={`Référents du site ${siteName(s)}`} onClick={() => setReferentsOf(s.id)}>
                <IconUsers size={16} aria-hidden />
              </ActionIcon>
            </Tooltip>
          )}
          <Box miw={0} style={{ flex: 1 }}>
            <EllipsisText>{s.referent ?? ''}</EllipsisText>
          </Box>
        </Group>
      ),
    },
    { accessor: 'volume', title: 'Volume total', sortable: true, noWrap: true, textAlign: 'right', render: (s) => formatLitres(s.volume) },
    {
      accessor: 'nbComposteurs',
      title: 'nb Composteurs',
      sortable: true,
      noWrap: true,
      render: (s) => (
        <Group gap={4} wrap="nowrap">
          {s.idStatut === SITE_STATUT.actif && (
            <Tooltip label="Composteurs">
              <ActionIcon variant="subtle" size="sm" aria-label={`Composteurs du site ${siteName(s)}`} onClick={() => setCellsOf(s)}>
                <IconRecycle size={16} aria-hidden />
              </ActionIcon>
            </Tooltip>
          )}
          <Text size="sm">{formatCount(s.nbComposteurs)}</Text>
        </Group>
      ),
    },
    { accessor: 'cadena', title: 'Cadena', sortable: true, width: 110, ellipsis: true },
    { accessor: 'observations', title: 'Observations', sortable: true, width: 220, ellipsis: true },
    {
      accessor: 'statut',
      title: 'Statut',
      sortable: true,
      noWrap: true,
      filterBy: { type: 'multiselect', name: 'statut', options: statutOptions },
      render: (s) => (
        <Badge color={s.idStatut === SITE_STATUT.actif ? 'green' : 'orange'} variant="light">
          {s.statut}
        </Badge>
      ),
    },
    { accessor: 'dateConvention', title: 'Date Convention', sortable: true, noWrap: true, render: (s) => formatParisDate(s.dateConvention) },
    { accessor: 'dateImplantation', title: 'Date Implantation', sortable: true, noWrap: true, render: (s) => formatParisDate(s.dateImplantation) },
    { accessor: 'dateInauguration', title: 'Date inauguration', sortable: true, noWrap: true, render: (s) => formatParisDate(s.dateInauguration) },
  ];

  return (
    <>
      <BackupNotice />
      <DataTable
        title="Sites"
        list={list}
        columns={columns}
        toolbar={
          <>
            <Button leftSection={<IconDownload size={16} aria-hidden />} variant="default" onClick={() => exportSites(list.queryString)}>
              Exporter en CSV
            </Button>
            <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setAdding(true)}>
              Ajouter un site
            </Button>
          </>
        }
      />
      <AddSiteDialog opened={adding} onClose={() => setAdding(false)} />
      <EditSiteDialog siteId={editing} onClose={() => setEditing(null)} />
      <SiteReferentsDialog siteId={referentsOf} onClose={() => setReferentsOf(null)} />
      <SiteCellsDialog site={cellsOf} onClose={() => setCellsOf(null)} />
      <RequesterDialog requesterId={requesterId} onClose={() => setRequesterId(null)} />
      <SiteInterventionsDialog site={interventionsOf} onClose={() => setInterventionsOf(null)} />
    </>
  );
}
