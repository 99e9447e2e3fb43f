// /admin/fiche/site/{id}/etiquettes: printable QR-code labels. The site's label opens its public
// page (/s/{code}: what to bring, how the site is doing, 'Signaler un problème'), for the
// households; then one label per active cell, whose code opens the site sheet on that cell
// (`?cellule={cellId}`): stick one on each bin and the form opens on the right cell. Printing
// keeps only the labels.
import { useEffect, useState } from 'react';
import { Alert, Anchor, Button, Group, Image, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { Loading } from '../../components/query-state';
import { IconPrinter } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import QRCode from 'qrcode';
import { Link, useParams } from 'react-router';
import type { SiteInfos } from '../../../shared/schemas/interventions';
import { siteInfosQuery } from './field-entry.api';
import { cellLabel } from '../../lib/labels';
import { PageTitle } from '../../components/page-title';

export function cellUrl(origin: string, siteId: number, cellId: number): string {
  return `${origin}/admin/fiche/site/${siteId}?cellule=${cellId}`;
}

/** The site's public page, for its label (absolute: the code is read by a phone's camera). */
export function sitePublicUrl(origin: string, code: string): string {
  return `${origin}/s/${encodeURIComponent(code)}`;
}

/** Key of the site's own label among the codes (cell ids are positive). */
const SITE_LABEL = 0;

const qrDataUrl = async (url: string) =>
  `data:image/svg+xml;charset=utf-8,${encodeURIComponent(await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 1 }))}`;

const PRINT_CSS = `
@media print {
  .mantine-AppShell-header, .mantine-AppShell-navbar, .labels-no-print { display: none !important; }
  .mantine-AppShell-main { padding: 0 !important; }
  .labels-sheet .label-card { break-inside: avoid; border: 1px solid #000 !important; }
}`;

function useQrCodes(site: SiteInfos | undefined): Map<number, string> | null {
  const [codes, setCodes] = useState<Map<number, string> | null>(null);
  useEffect(() => {
    if (!site) return;
    let cancelled = false;
    void Promise.all([
      qrDataUrl(sitePublicUrl(window.location.origin, site.code)).then((src) => [SITE_LABEL, src] as const),
      ...site.siteComposteurs.map(async (cell) => [cell.id, await qrDataUrl(cellUrl(window.location.origin, site.id, cell.id))] as const),
    ]).then((rows) => {
      if (!cancelled) setCodes(new Map(rows));
    });
    return () => {
      cancelled = true;
    };
  }, [site]);
  return codes;
}

export function SiteLabelsPage() {
  const siteId = Number(useParams().id);
  const infos = useQuery({ ...siteInfosQuery(siteId), enabled: Number.isInteger(siteId) && siteId > 0 });
  const site = infos.data?.data;
  const codes = useQrCodes(site);

  if (infos.isError) {
    return (
      <Alert color="red" role="alert">
        Site introuvable
      </Alert>
    );
  }
  if (!site || !codes) {
    return <Loading label="Chargement…" />;
  }
  const cells = [...site.siteComposteurs].sort((a, b) => a.numero - b.numero);
  return (
    <Stack gap="md" className="labels-sheet">
      <style>{PRINT_CSS}</style>
      <Group justify="space-between" className="labels-no-print">
        <PageTitle size="h2">Étiquettes QR du site et des cellules</PageTitle>
        <Group gap="sm">
          <Anchor component={Link} to={`/admin/fiche/site/${site.id}`}>
            Retour à la fiche du site
          </Anchor>
          <Button leftSection={<IconPrinter size={16} aria-hidden />} onClick={() => window.print()}>
            Imprimer
          </Button>
        </Group>
      </Group>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="md">
        <Paper withBorder p="md" className="label-card">
          <Stack align="center" gap={4}>
            <Text fw={700} ta="center">
              {site.nom ? `${site.nom} (${site.code})` : site.code}
            </Text>
            <Image src={codes.get(SITE_LABEL)} alt={`QR code : page publique du site ${site.code}`} w={180} h={180} />
            <Text fw={600} ta="center">
              Site de compostage : infos et signalement
            </Text>
            <Text size="xs" c="dimmed" ta="center" style={{ wordBreak: 'break-all' }}>
              {sitePublicUrl(window.location.origin, site.code)}
            </Text>
          </Stack>
        </Paper>
      </SimpleGrid>
      {cells.length === 0 ? (
        <Text>Aucun résultat</Text>
      ) : (
        <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="md">
          {cells.map((cell) => (
            <Paper key={cell.id} withBorder p="md" className="label-card">
              <Stack align="center" gap={4}>
                <Text fw={700} ta="center">
                  {site.nom ? `${site.nom} (${site.code})` : site.code}
                </Text>
                <Image src={codes.get(cell.id)} alt={`QR code : ${cellLabel(cell)}`} w={180} h={180} />
                <Text fw={600}>{cellLabel(cell)}</Text>
                <Text size="xs" c="dimmed" ta="center" style={{ wordBreak: 'break-all' }}>
                  {cellUrl(window.location.origin, site.id, cell.id)}
                </Text>
              </Stack>
            </Paper>
          ))}
        </SimpleGrid>
      )}
    </Stack>
  );
}
