// /admin/import 'Import' (ROLE_ADMIN): moving in from spreadsheets or the old back-office.
// The administrator picks a kind, downloads its template (or the instance's own data in the
// same layout), chooses a file and has it checked: the preview gives the counts and the
// errors with their line and column (the first 100 on screen, all of them as a CSV). 'Importer'
// appears only for a file without errors. A progress bar follows the upload, then the server.
import { useEffect, useRef, useState } from 'react';
import { Alert, Button, Checkbox, FileInput, Group, Progress, SegmentedControl, Stack, Table, Text } from '@mantine/core';
import { IconDownload, IconFileCheck, IconUpload } from '@tabler/icons-react';
import { can } from '../../../shared/permissions';
import { IMPORT_KIND_LABELS, IMPORT_KINDS, type ImportKind, type ImportProgress, type ImportReport } from '../../../shared/schemas/imports';
import { useSessionStore } from '../../session/session-store';
import { PageMessage } from '../../components/page-message';
import { PageTitle } from '../../components/page-title';
import { downloader } from '../../lib/download';
import { downloadTemplate, importProgress, ImportRefusal, uploadImport } from './imports.api';

const SHOWN_ERRORS = 100;
const PHASE_LABELS: Record<ImportProgress['phase'], string> = { lecture: 'Lecture du fichier', verification: 'Vérification des lignes', ecriture: 'Écriture', termine: 'Terminé' };

/** The errors of a report as a CSV (UTF-8 with BOM, ';'), the way the exports are written. */
function downloadErrors(report: ImportReport) {
  const cell = (v: string | number) => {
    const s = String(v);
    const t = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
    return /[;"\r\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
  };
  const lines = [['Ligne', 'Colonne', 'Message'], ...report.erreurs.map((e) => [e.ligne, e.colonne, e.message])].map((l) => l.map(cell).join(';'));
  const url = URL.createObjectURL(new Blob(['\uFEFF' + lines.join('\r\n') + '\r\n'], { type: 'text/csv' }));
  downloader.start(url, 'erreurs-import.csv');
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function ImportPage() {
  const roles = useSessionStore((s) => s.roles);
  if (!can(roles, 'data.import')) return <PageMessage title="Accès non authorisé.">Cet écran est réservé aux administrateurs.</PageMessage>;
  return <ImportScreen />;
}

function ImportScreen() {
  const [kind, setKind] = useState<ImportKind>('sites');
  const [file, setFile] = useState<File | null>(null);
  const [invite, setInvite] = useState(false);
  const [busy, setBusy] = useState<'essai' | 'import' | null>(null);
  const [upload, setUpload] = useState(0);
  const [server, setServer] = useState<ImportProgress | null>(null);
  const [report, setReport] = useState<ImportReport | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const polling = useRef<number | null>(null);

  // A new kind or file: the preview no longer says anything about it.
  useEffect(() => {
    setReport(null);
    setRefusal(null);
  }, [kind, file]);
  useEffect(() => () => void (polling.current !== null && window.clearInterval(polling.current)), []);

  async function run(mode: 'essai' | 'import') {
    if (!file) return;
    const suivi = crypto.randomUUID();
    setBusy(mode);
    setUpload(0);
    setServer(null);
    setRefusal(null);
    polling.current = window.setInterval(() => {
      void importProgress(suivi).then((p) => p && setServer(p), () => undefined);
    }, 500);
    try {
      setReport(await uploadImport(kind, file, { mode, invite: kind === 'utilisateurs' && invite, suivi, onUpload: setUpload }));
    } catch (e) {
      setReport(null);
      setRefusal(e instanceof ImportRefusal ? e.message : 'Une erreur est survenue.');
    } finally {
      window.clearInterval(polling.current);
      polling.current = null;
      setBusy(null);
    }
  }

  const done = report?.mode === 'import' && report.erreurs.length === 0;
  const serverRatio = server && server.total > 0 ? server.fait / server.total : 0;
  return (
    <Stack maw={1000}>
      <PageTitle>Import</PageTitle>
      <Text>
        Reprenez vos sites, vos utilisateurs et l’historique des interventions depuis un tableur ou l’ancien outil. Importez dans l’ordre : sites, utilisateurs,
        puis interventions. Chaque fichier est d’abord vérifié ; rien n’est écrit tant qu’il contient une erreur, et réimporter un même fichier ne change rien.
      </Text>
      <SegmentedControl
        aria-label="Que voulez-vous importer ?"
        value={kind}
        onChange={(v) => setKind(v as ImportKind)}
        data={IMPORT_KINDS.map((k) => ({ value: k, label: IMPORT_KIND_LABELS[k] }))}
      />
      <Group>
        <Button variant="light" leftSection={<IconDownload size={16} />} onClick={() => downloadTemplate(kind, false)}>
          Télécharger le modèle
        </Button>
        <Button variant="subtle" leftSection={<IconDownload size={16} />} onClick={() => downloadTemplate(kind, true)}>
          Télécharger les données actuelles
        </Button>
      </Group>
      <FileInput label="Fichier (CSV ou Excel .xlsx, 10 Mo au plus)" placeholder="Choisir un fichier"
        // The placeholder is the button's text here, so it takes the text colour (contrast).
        styles={{ placeholder: { color: 'var(--mantine-color-text)' } }}
        accept=".csv,.txt,.xlsx" value={file} onChange={setFile} clearable />
      {kind === 'utilisateurs' && (
        <Checkbox label="Envoyer à chaque nouvel utilisateur un mail pour choisir son mot de passe" checked={invite} onChange={(e) => setInvite(e.currentTarget.checked)} />
      )}
      <Group>
        <Button leftSection={<IconFileCheck size={16} />} disabled={!file || busy !== null} loading={busy === 'essai'} onClick={() => void run('essai')}>
          Vérifier le fichier
        </Button>
        {report && report.erreurs.length === 0 && !done && (
          <Button color="green" leftSection={<IconUpload size={16} />} disabled={busy !== null} loading={busy === 'import'} onClick={() => void run('import')}>
            Importer
          </Button>
        )}
      </Group>
      {busy && (
        <Stack gap={4} aria-live="polite">
          <Text size="sm">{server ? `${PHASE_LABELS[server.phase]} : ${server.fait.toLocaleString('fr-FR')} / ${server.total.toLocaleString('fr-FR')}` : `Envoi du fichier : ${Math.round(upload * 100)} %`}</Text>
          <Progress value={server ? serverRatio * 100 : upload * 100} aria-label="Progression de l’import" animated />
        </Stack>
      )}
      {refusal && (
        <Alert color="red" title="Fichier refusé">
          {refusal}
        </Alert>
      )}
      {report && <ReportView report={report} done={done} />}
    </Stack>
  );
}

function ReportView({ report, done }: { report: ImportReport; done: boolean }) {
  const verb = done ? ['créé(s)', 'modifié(s)'] : ['à créer', 'à modifier'];
  return (
    <Stack>
      <Alert color={report.erreurs.length ? 'red' : 'green'} title={done ? 'Import terminé' : report.erreurs.length ? 'Le fichier contient des erreurs' : 'Fichier vérifié'}>
        {`${report.lignes} ligne(s) : ${report.crees} ${verb[0]}, ${report.modifies} ${verb[1]}, ${report.inchanges} inchangée(s).`}
        {report.erreurs.length > 0 && ` ${report.erreurs.length} erreur(s) : rien n’a été importé. Corrigez le fichier puis vérifiez-le à nouveau.`}
        {report.erreurs.length === 0 && !done && ' Aucune erreur : vous pouvez importer.'}
        {done && report.invitations > 0 && ` ${report.invitations} invitation(s) envoyée(s).`}
      </Alert>
      {report.erreurs.length > 0 && (
        <>
          <Group justify="space-between">
            <Text fw={500}>{report.erreurs.length > SHOWN_ERRORS ? `Les ${SHOWN_ERRORS} premières erreurs` : 'Erreurs'}</Text>
            <Button variant="light" size="xs" leftSection={<IconDownload size={14} />} onClick={() => downloadErrors(report)}>
              Télécharger toutes les erreurs (CSV)
            </Button>
          </Group>
          <LineTable rows={report.erreurs.slice(0, SHOWN_ERRORS)} label="Erreurs du fichier" />
        </>
      )}
      {report.avertissements.length > 0 && (
        <>
          <Text fw={500}>À vérifier (n’empêche pas l’import)</Text>
          <LineTable rows={report.avertissements.slice(0, SHOWN_ERRORS)} label="Avertissements" />
        </>
      )}
    </Stack>
  );
}

function LineTable({ rows, label }: { rows: ImportReport['erreurs']; label: string }) {
  return (
    <Table striped aria-label={label}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Ligne</Table.Th>
          <Table.Th>Colonne</Table.Th>
          <Table.Th>Message</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((e, i) => (
          <Table.Tr key={i}>
            <Table.Td>{e.ligne}</Table.Td>
            <Table.Td>{e.colonne}</Table.Td>
            <Table.Td>{e.message}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
