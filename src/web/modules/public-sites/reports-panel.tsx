// The 'Signalements' panel: the reports households sent from the sites' public pages, for
// ROLE_ADMIN (every site) and referents (their own sites). A new report is turned into an
// intervention request ('Transformer en demande': scheduled action, cell and due date) or filed
// with a reason ('Classer'); either way its author, when they left an e-mail, gets one answer.
// Several new reports can be chosen (their checkboxes) and closed at once ('Clôturer'), merged
// into the one kept ('Fusionner'), or, when they are of one site, turned into one request
// ('Transformer en une demande'): each is one action on the server, all or none.
// Mounted alone at /admin/signalements and meant for a tab of the requests board.
import { useEffect, useState } from 'react';
import { Alert, Badge, Button, Checkbox, Group, Pagination, Paper, Radio, SegmentedControl, Select, Stack, Text, Textarea, Title } from '@mantine/core';
import { Dialog } from '../../components/dialog';
import { Loading } from '../../components/query-state';
import { DateInput } from '@mantine/dates';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { formatParisDate, formatParisDateTime, parisDayValue } from '../../../shared/dates';
import { SIGNALEMENT_MESSAGES, SIGNALEMENT_MOTIF_MAX, type SignalementRow } from '../../../shared/schemas/public-sites';
import { typeActionsQuery } from '../../session/bootstrap.api';
import { FormDialogFooter, ErrorBanner } from '../../components/form-dialog';
import { readFailure } from '../../lib/api';
import { notifySuccess } from '../../lib/notify';
import { requestsKeys } from '../requests/public';
import { REPORTS_PAGE_SIZE, fileReport, fileReports, mergeReports, reportSiteCellsQuery, reportsKeys, reportsQuery, transformReport, transformReports } from './reports.api';

type Tab = 'nouveau' | 'traite';

/** The action a report usually calls for, offered first (the person handling it may change it). */
export const SUGGESTED_ACTION: Record<string, number | null> = {
  bac_plein: 3, // Transfert
  odeur: 2, // Brassage
  nuisibles: 5, // Nettoyage du site
  degradation: 14, // Réparation effectuée
  autre: null,
};

const DAY_MS = 24 * 3600 * 1000;
const REQUIRED_BANNER = 'Veuillez renseigner les champs obligatoires';

/** '05/03/2026' (or 5/3/2026) -> '2026-03-05'; anything else -> null. */
export function parseFrenchDay(input: string): string | null {
  const m = /^\s*(\d{1,2})\/(\d{1,2})\/(\d{4})\s*$/.exec(input);
  if (!m) return null;
  const [day, month, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return null;
  return `${m[3]}-${m[2].padStart(2, '0')}-${m[1].padStart(2, '0')}`;
}

export function ReportsPanel() {
  const [tab, setTab] = useState<Tab>('nouveau');
  const [page, setPage] = useState(0);
  const reports = useQuery(reportsQuery(tab, page));
  const [transforming, setTransforming] = useState<SignalementRow[] | null>(null);
  const [filing, setFiling] = useState<SignalementRow[] | null>(null);
  const [merging, setMerging] = useState<SignalementRow[] | null>(null);
  // The chosen reports, kept with their rows: the choice survives a change of page.
  const [selected, setSelected] = useState<ReadonlyMap<number, SignalementRow>>(new Map());
  const count = reports.data?.count ?? 0;
  const chosen = [...selected.values()];
  const pageRows = reports.data?.signalements ?? [];
  const allOnPage = pageRows.length > 0 && pageRows.every((r) => selected.has(r.id));
  const toggle = (rows: SignalementRow[], on: boolean) =>
    setSelected((m) => {
      const next = new Map(m);
      for (const r of rows) if (on) next.set(r.id, r);
      else next.delete(r.id);
      return next;
    });
  const oneSite = chosen.length > 0 && chosen.every((r) => r.idSite === chosen[0].idSite);
  const bulkDone = () => {
    setTransforming(null);
    setFiling(null);
    setMerging(null);
    setSelected(new Map());
  };

  return (
    <Stack gap="md">
      <SegmentedControl
        aria-label="Signalements affichés"
        value={tab}
        onChange={(v) => {
          setTab(v as Tab);
          setPage(0);
          setSelected(new Map());
        }}
        data={[
          { value: 'nouveau', label: 'Nouveaux' },
          { value: 'traite', label: 'Traités' },
        ]}
        w="fit-content"
      />
      {reports.isPending ? (
        <Loading label="Chargement des signalements" />
      ) : reports.isError ? (
        <Alert color="red" role="alert" title="Chargement impossible">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">Les signalements n’ont pas pu être chargés.</Text>
            <Button size="xs" variant="light" color="red" onClick={() => void reports.refetch()}>
              Réessayer
            </Button>
          </Stack>
        </Alert>
      ) : reports.data.signalements.length === 0 ? (
        <Text c="dimmed">{tab === 'nouveau' ? 'Aucun nouveau signalement' : 'Aucun signalement traité'}</Text>
      ) : (
        <Stack gap="sm">
          {tab === 'nouveau' ? (
            <Group gap="sm" justify="space-between" role="group" aria-label="Actions sur les signalements choisis">
              <Checkbox
                label="Choisir tous les signalements de la page"
                checked={allOnPage}
                indeterminate={!allOnPage && pageRows.some((r) => selected.has(r.id))}
                onChange={(e) => toggle(pageRows, e.currentTarget.checked)}
              />
              <Group gap="sm">
                <Text size="sm" aria-live="polite">
                  {chosen.length} choisi{chosen.length > 1 ? 's' : ''} sur {count} signalement{count > 1 ? 's' : ''}
                </Text>
                <Button size="xs" variant="default" disabled={chosen.length === 0} onClick={() => setFiling(chosen)}>
                  Clôturer
                </Button>
                <Button size="xs" variant="default" disabled={chosen.length < 2} onClick={() => setMerging(chosen)}>
                  Fusionner
                </Button>
                <Button
                  size="xs"
                  variant="default"
                  disabled={chosen.length < 2 || !oneSite}
                  title={chosen.length >= 2 && !oneSite ? 'Choisissez des signalements d’un même site' : undefined}
                  onClick={() => setTransforming(chosen)}
                >
                  Transformer en une demande
                </Button>
              </Group>
            </Group>
          ) : (
            <Text size="sm" c="dimmed">
              {count} signalement{count > 1 ? 's' : ''}
            </Text>
          )}
          {reports.data.signalements.map((r) => (
            <ReportCard
              key={r.id}
              report={r}
              selected={selected.has(r.id)}
              onSelect={(on) => toggle([r], on)}
              onTransform={() => setTransforming([r])}
              onFile={() => setFiling([r])}
            />
          ))}
          {count > REPORTS_PAGE_SIZE && (
            <Pagination
              total={Math.ceil(count / REPORTS_PAGE_SIZE)}
              value={page + 1}
              onChange={(p) => setPage(p - 1)}
              getControlProps={(control) => ({ 'aria-label': control === 'next' ? 'Page suivante' : control === 'previous' ? 'Page précédente' : undefined })}
            />
          )}
        </Stack>
      )}
      <TransformDialog reports={transforming} onClose={() => setTransforming(null)} onDone={bulkDone} />
      <FileDialog reports={filing} onClose={() => setFiling(null)} onDone={bulkDone} />
      <MergeDialog reports={merging} onClose={() => setMerging(null)} onDone={bulkDone} />
    </Stack>
  );
}

/** 'n° 12 du 05/03/2026 08:30 : Jardin': how a report is named to the user. */
const reportName = (r: SignalementRow) => `n° ${r.id} du ${formatParisDateTime(r.date)} : ${r.site}`;

interface CardProps {
  report: SignalementRow;
  selected: boolean;
  onSelect: (on: boolean) => void;
  onTransform: () => void;
  onFile: () => void;
}

function ReportCard({ report: r, selected, onSelect, onTransform, onFile }: CardProps) {
  return (
    <Paper withBorder p="md" radius="md" component="article" aria-label={`Signalement ${reportName(r)}`}>
      <Stack gap={6}>
        <Group justify="space-between" gap="xs">
          <Group gap="xs">
            {r.statut === 'nouveau' && <Checkbox aria-label={`Choisir le signalement ${reportName(r)}`} checked={selected} onChange={(e) => onSelect(e.currentTarget.checked)} />}
            <Badge variant="light">{r.categorieLibelle}</Badge>
            {r.occurrences > 1 && (
              <Badge variant="light" color="orange">
                Signalé {r.occurrences} fois
              </Badge>
            )}
            {r.reponseDemandee && r.fusionneDans === null && (
              <Badge variant="outline" color="gray">
                {r.statut === 'nouveau' ? 'Réponse attendue par mail' : 'Réponse envoyée par mail'}
              </Badge>
            )}
          </Group>
          <Text size="sm" c="dimmed">
            {formatParisDateTime(r.date)}
          </Text>
        </Group>
        <Title order={3} size="h5">
          {r.site} ({r.code})
        </Title>
        <Text size="sm" c="dimmed">
          {r.adresse}
        </Text>
        <Text style={{ whiteSpace: 'pre-line', overflowWrap: 'anywhere' }}>{r.texte}</Text>
        {r.statut === 'nouveau' ? (
          <Group gap="sm" mt={4}>
            <Button size="xs" onClick={onTransform}>
              Transformer en demande
            </Button>
            <Button size="xs" variant="default" onClick={onFile}>
              Classer
            </Button>
          </Group>
        ) : (
          <Text size="sm">
            {r.fusionneDans !== null
              ? `Fusionné le ${formatParisDate(r.traiteLe)}${r.traitePar ? ` par ${r.traitePar}` : ''} dans le signalement n° ${r.fusionneDans}`
              : r.statut === 'transforme'
              ? `Transformé en demande le ${formatParisDate(r.traiteLe)}${r.traitePar ? ` par ${r.traitePar}` : ''} : ${r.actionProgrammee ?? 'demande supprimée'}${r.dateEcheance ? `, échéance le ${formatParisDate(r.dateEcheance)}` : ''}`
              : `Classé le ${formatParisDate(r.traiteLe)}${r.traitePar ? ` par ${r.traitePar}` : ''}. Motif : ${r.motif ?? ''}`}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}

function TransformDialog({ reports, onClose, onDone }: { reports: SignalementRow[] | null; onClose: () => void; onDone: () => void }) {
  const many = (reports?.length ?? 0) > 1;
  return (
    <Dialog opened={reports !== null} onClose={onClose} title={many ? `Transformer ${reports!.length} signalements en une demande` : 'Transformer en demande'} centered>
      {reports && <TransformForm key={reports.map((r) => r.id).join(',')} reports={reports} onDone={onDone} />}
    </Dialog>
  );
}

/** One request from one report, or from several reports of one site (each is linked to it). */
function TransformForm({ reports, onDone }: { reports: SignalementRow[]; onDone: () => void }) {
  const [report] = reports;
  const queryClient = useQueryClient();
  const actions = useQuery(typeActionsQuery());
  const cells = useQuery(reportSiteCellsQuery(report.idSite));
  const today = parisDayValue(new Date())!;
  const lastDay = parisDayValue(new Date(Date.now() + 365 * DAY_MS))!;
  const [action, setAction] = useState<string | null>(SUGGESTED_ACTION[report.categorie] ? String(SUGGESTED_ACTION[report.categorie]) : null);
  const [cell, setCell] = useState<string | null>(null);
  const [due, setDue] = useState<string | null>(parisDayValue(new Date(Date.now() + 7 * DAY_MS)));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const chosen = actions.data?.find((a) => String(a.id) === action);
  const cellOptions = (cells.data ?? [])
    .filter((c) => !chosen || chosen.typeBac.includes(c.typeBac))
    .map((c) => ({ value: String(c.id), label: `Cellule n°${c.numero} - ${c.libelleTypeBac}` }));

  // The only cell the action fits is chosen for the user; a cell the action does not fit is dropped.
  useEffect(() => {
    if (cell && !cellOptions.some((o) => o.value === cell)) setCell(null);
    else if (!cell && cellOptions.length === 1) setCell(cellOptions[0].value);
  }, [cell, cellOptions]);

  const clear = (key: string) =>
    setErrors((e) => {
      const next = { ...e };
      delete next[key];
      return next;
    });

  const save = async () => {
    const found: Record<string, string> = {};
    if (!action) found.actionProgrammee = SIGNALEMENT_MESSAGES.actionRequired;
    if (!cell) found.composteur = SIGNALEMENT_MESSAGES.cellRequired;
    if (!due) found.dateEcheance = SIGNALEMENT_MESSAGES.dateRequired;
    else if (due < today || due > lastDay) found.dateEcheance = SIGNALEMENT_MESSAGES.dateRange;
    setErrors(found);
    if (Object.keys(found).length > 0) return setBanner(REQUIRED_BANNER);
    setSaving(true);
    setBanner(null);
    try {
      const payload = { actionProgrammee: Number(action), composteur: Number(cell), dateEcheance: due! };
      const res = reports.length > 1 ? await transformReports(reports.map((r) => r.id), payload) : await transformReport(report.id, payload);
      notifySuccess(res.message);
      await Promise.all([queryClient.invalidateQueries({ queryKey: reportsKeys.all }), queryClient.invalidateQueries({ queryKey: requestsKeys.all })]);
      onDone();
    } catch (e) {
      const failure = await readFailure(e);
      if (failure.status === 400 && failure.errors.length > 0) {
        setErrors(Object.fromEntries(failure.errors.map((x) => [x.key, x.error])));
        setBanner(REQUIRED_BANNER);
      } else {
        setBanner(failure.message && failure.status !== null && failure.status < 500 ? failure.message : 'Une erreur est survenue');
        if (failure.status === 409 || failure.status === 404) void queryClient.invalidateQueries({ queryKey: reportsKeys.all });
      }
    } finally {
      setSaving(false);
    }
  };

  return (
    <Stack gap="sm">
      <ErrorBanner message={banner} />
      <Text size="sm">
        <strong>{report.site}</strong> · {report.categorieLibelle}
      </Text>
      <Text size="sm" c="dimmed" lineClamp={3}>
        {reports.length > 1 ? `${reports.length} signalements, chacun lié à la demande créée : ${reports.map((r) => `n° ${r.id}`).join(', ')}` : report.texte}
      </Text>
      <Select
        label="Action à programmer"
        withAsterisk
        searchable
        placeholder={actions.isPending ? 'Chargement…' : 'Choisir une action'}
        nothingFoundMessage="Aucun résultat"
        data={(actions.data ?? []).map((a) => ({ value: String(a.id), label: a.libelle }))}
        value={action}
        onChange={(v) => {
          setAction(v);
          clear('actionProgrammee');
        }}
        error={errors.actionProgrammee}
      />
      <Select
        label="Cellule"
        withAsterisk
        placeholder={cells.isPending ? 'Chargement…' : cellOptions.length === 0 ? 'Aucune cellule pour cette action' : 'Choisir une cellule'}
        data={cellOptions}
        value={cell}
        onChange={(v) => {
          setCell(v);
          clear('composteur');
        }}
        error={errors.composteur ?? (cells.isError ? 'Les cellules du site n’ont pas pu être chargées' : undefined)}
      />
      <DateInput
        label="Échéance"
        withAsterisk
        valueFormat="DD/MM/YYYY"
        dateParser={parseFrenchDay}
        placeholder="jj/mm/aaaa"
        minDate={today}
        maxDate={lastDay}
        value={due}
        onChange={(v) => {
          setDue(v);
          clear('dateEcheance');
        }}
        error={errors.dateEcheance}
      />
      <FormDialogFooter saving={saving} onCancel={onDone} onSave={() => void save()} />
    </Stack>
  );
}

function FileDialog({ reports, onClose, onDone }: { reports: SignalementRow[] | null; onClose: () => void; onDone: () => void }) {
  const many = reports !== null && reports.length > 1;
  return (
    <Dialog opened={reports !== null} onClose={onClose} title={many ? `Clôturer ${reports.length} signalements` : 'Classer le signalement'} centered>
      {reports && <FileForm key={reports.map((r) => r.id).join()} reports={reports} onCancel={onClose} onDone={onDone} />}
    </Dialog>
  );
}

/** After a refusal of the server: its failure and the banner's text; the list is reloaded when the reports changed meanwhile. */
async function refusal(e: unknown, queryClient: ReturnType<typeof useQueryClient>) {
  const failure = await readFailure(e);
  if (failure.status === 409 || failure.status === 404) void queryClient.invalidateQueries({ queryKey: reportsKeys.all });
  return { failure, message: failure.message && failure.status !== null && failure.status < 500 ? failure.message : 'Une erreur est survenue' };
}

function FileForm({ reports, onCancel, onDone }: { reports: SignalementRow[]; onCancel: () => void; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [motif, setMotif] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [banner, setBanner] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [report] = reports;

  const save = async () => {
    const length = motif.trim().length;
    if (length < 3 || length > SIGNALEMENT_MOTIF_MAX) {
      setError(SIGNALEMENT_MESSAGES.motifLength);
      return setBanner(REQUIRED_BANNER);
    }
    setSaving(true);
    setBanner(null);
    try {
      const res = reports.length > 1 ? await fileReports(reports.map((r) => r.id), motif) : await fileReport(report.id, motif);
      notifySuccess(res.message);
      await queryClient.invalidateQueries({ queryKey: reportsKeys.all });
      onDone();
    } catch (e) {
      const { failure, message } = await refusal(e, queryClient);
      const field = failure.errors.find((x) => x.key === 'motif');
      if (field) setError(field.error);
      setBanner(failure.status === 400 ? (field ? REQUIRED_BANNER : (failure.errors[0]?.error ?? message)) : message);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Stack gap="sm">
      <ErrorBanner message={banner} />
      {reports.length > 1 ? (
        <Text size="sm">Les {reports.length} signalements choisis seront classés avec ce motif, tous ou aucun.</Text>
      ) : (
        <Text size="sm">
          <strong>{report.site}</strong> · {report.categorieLibelle}
        </Text>
      )}
      <Textarea
        label="Motif"
        withAsterisk
        description={reports.some((r) => r.reponseDemandee) ? 'Envoyé par mail aux personnes qui ont demandé une réponse.' : undefined}
        autosize
        minRows={2}
        maxLength={SIGNALEMENT_MOTIF_MAX}
        value={motif}
        onChange={(e) => {
          setMotif(e.currentTarget.value);
          setError(null);
        }}
        error={error}
      />
      <FormDialogFooter saving={saving} onCancel={onCancel} onSave={() => void save()} />
    </Stack>
  );
}

function MergeDialog({ reports, onClose, onDone }: { reports: SignalementRow[] | null; onClose: () => void; onDone: () => void }) {
  return (
    <Dialog opened={reports !== null} onClose={onClose} title={`Fusionner ${reports?.length ?? 0} signalements`} centered>
      {reports && <MergeForm key={reports.map((r) => r.id).join()} reports={reports} onCancel={onClose} onDone={onDone} />}
    </Dialog>
  );
}

function MergeForm({ reports, onCancel, onDone }: { reports: SignalementRow[]; onCancel: () => void; onDone: () => void }) {
  const queryClient = useQueryClient();
  // The oldest report is kept by default: the others repeat it.
  const [kept, setKept] = useState(String([...reports].sort((a, b) => a.date.localeCompare(b.date) || a.id - b.id)[0].id));
  const [banner, setBanner] = useState<string | null>(new Set(reports.map((r) => r.idSite)).size > 1 ? SIGNALEMENT_MESSAGES.mergeOtherSite : null);
  const [saving, setSaving] = useState(false);

  const save = async () => {
    setSaving(true);
    setBanner(null);
    try {
      const res = await mergeReports(
        Number(kept),
        reports.filter((r) => String(r.id) !== kept).map((r) => r.id),
      );
      notifySuccess(res.message);
      await queryClient.invalidateQueries({ queryKey: reportsKeys.all });
      onDone();
    } catch (e) {
      const { failure, message } = await refusal(e, queryClient);
      setBanner(failure.errors[0]?.error ?? message);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Stack gap="sm">
      <ErrorBanner message={banner} />
      <Radio.Group
        label="Signalement conservé"
        description="Les autres sont classés, liés à lui et comptés avec lui ; leurs auteurs recevront sa réponse."
        value={kept}
        onChange={setKept}
      >
        <Stack gap="xs" mt="xs">
          {reports.map((r) => (
            <Radio key={r.id} value={String(r.id)} label={`${reportName(r)} : ${r.texte.length > 80 ? `${r.texte.slice(0, 80)}…` : r.texte}`} />
          ))}
        </Stack>
      </Radio.Group>
      <FormDialogFooter saving={saving} onCancel={onCancel} onSave={() => void save()} />
    </Stack>
  );
}
