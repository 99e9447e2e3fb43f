// 'Modifier l'intervention' (interventions administration): the date and the one
// block of the field form (InterventionBlockFields, shared with the site sheet), checked with
// the rules of the add route before sending; the server's per-field errors (values0.valeur…)
// go under their inputs and 'Veuillez remplir les champs obligatoires' in the banner. The photos
// of the entry are shown, not edited (the phone that took them sends them).
import { useState } from 'react';
import { Stack, Text } from '@mantine/core';
import { DateTimePicker } from '@mantine/dates';
import { useQuery } from '@tanstack/react-query';
import dayjs from 'dayjs';
import { typeActionsQuery } from '../../session/bootstrap.api';
import { Dialog } from '../../components/dialog';
import { ErrorBanner, FormDialogFooter } from '../../components/form-dialog';
import { QueryState } from '../../components/query-state';
import { useSaveAction } from '../../lib/form';
import { notifySuccess } from '../../lib/notify';
import { formatParisDateTime } from '../../../shared/dates';
import type { FieldError } from '../../../shared/errors';
import { INTERVENTION_MESSAGES, validateBlocksAgainstCatalogue } from '../../../shared/schemas/intervention-rules';
import { INTERVENTION_ADMIN_MESSAGES, type InterventionAdminRow, type InterventionDetail } from '../../../shared/schemas/interventions-admin';
import type { TypeAction, TypeActionConstante } from '../../../shared/schemas/reference';
import { constantesQuery, DATE_FORMAT, InterventionBlockFields, toSubmission, type BlockField, type BlockFormValues } from '../field-entry/public';
import { interventionDetailQuery, updateIntervention } from './interventions-admin.api';
import { InterventionPhotos } from './intervention-photos';

/** What an intervention's photos show, for screen readers: 'Réparation à effectuer, cellule n°1, Épinette, le 10/01/2026 14:05'. */
export function photosSubject(r: Pick<InterventionAdminRow, 'typeAction' | 'numeroBac' | 'site' | 'date'>): string {
  return `${r.typeAction}, cellule n°${r.numeroBac}, ${r.site}, le ${formatParisDateTime(r.date)}`;
}

export function InterventionEditDialog({ id, onClose, onSaved }: { id: number | null; onClose: () => void; onSaved: () => void }) {
  return (
    <Dialog opened={id !== null} onClose={onClose} title="Modifier l'intervention" size="lg">
      {id !== null && <EditLoader id={id} onClose={onClose} onSaved={onSaved} />}
    </Dialog>
  );
}

function EditLoader({ id, onClose, onSaved }: { id: number; onClose: () => void; onSaved: () => void }) {
  const queries = [useQuery(interventionDetailQuery(id)), useQuery(typeActionsQuery()), useQuery(constantesQuery())] as const;
  return <QueryState queries={queries}>{(detail, typeActions, constantes) => <EditForm detail={detail} typeActions={typeActions} constantes={constantes} onClose={onClose} onSaved={onSaved} />}</QueryState>;
}

function initialBlock(d: InterventionDetail['intervention']): BlockFormValues {
  return {
    composteur: String(d.idSiteComposteur),
    action: String(d.idAction),
    valeur: d.valeurSaisie === null ? null : typeof d.valeurSaisie === 'number' ? String(d.valeurSaisie) : d.valeurSaisie,
    bacDestination: d.bacDestination === null ? null : String(d.bacDestination),
    observations: d.observations ?? '',
    demandeIntervention: null,
  };
}

function EditForm({
  detail,
  typeActions,
  constantes,
  onClose,
  onSaved,
}: {
  detail: InterventionDetail;
  typeActions: TypeAction[];
  constantes: TypeActionConstante[];
  onClose: () => void;
  onSaved: () => void;
}) {
  const { intervention, site, lastChange } = detail;
  const [date, setDate] = useState<string | null>(dayjs(intervention.date).format(DATE_FORMAT));
  const [block, setBlock] = useState<BlockFormValues>(() => initialBlock(intervention));
  const [errors, setErrors] = useState<Record<string, string>>({});
  // The cell and destination the intervention already uses stay choosable even if deactivated since.
  const cells = site.siteComposteurs.filter((c) => c.actif || c.id === intervention.idSiteComposteur || c.id === intervention.bacDestination);

  const setServerErrors = (list: readonly FieldError[]) => {
    const next: Record<string, string> = {};
    const unmatched: FieldError[] = [];
    for (const e of list) {
      const field = e.key === 'date' ? 'date' : e.key.startsWith('values0.') ? e.key.slice('values0.'.length) : null;
      if (field && ['date', 'composteur', 'action', 'valeur', 'bacDestination', 'observations'].includes(field)) next[field] ??= e.error;
      else unmatched.push(e);
    }
    setErrors(next);
    return unmatched;
  };
  const save = useSaveAction({ invalid: INTERVENTION_ADMIN_MESSAGES.required, serverMessage: true, setServerErrors });

  const submit = () => {
    const draft = toSubmission({ date, values: [block] }, { clientId: '', siteId: site.id, typeActions }).values[0];
    const found: FieldError[] = [];
    if (!date) found.push({ key: 'date', error: INTERVENTION_MESSAGES.dateRequired });
    else if (dayjs(date).isAfter(dayjs().add(2, 'minute'))) found.push({ key: 'date', error: INTERVENTION_MESSAGES.dateFuture });
    found.push(...validateBlocksAgainstCatalogue([draft], { typeActions, constantes, cells: cells.map((c) => ({ ...c, actif: true })) }));
    if (found.length > 0) {
      setServerErrors(found);
      save.showInvalid();
      return;
    }
    setErrors({});
    const { demandeIntervention: _unused, ...value } = draft;
    void _unused;
    void save.run(async () => {
      await updateIntervention(intervention.id, { date: dayjs(date).toISOString(), values: [{ ...value, composteur: value.composteur!, action: value.action! }] });
      notifySuccess(INTERVENTION_ADMIN_MESSAGES.updated);
      onSaved();
    });
  };

  const changeBlock = (patch: Partial<BlockFormValues>) => {
    setBlock((b) => ({ ...b, ...patch }));
    setErrors((e) => {
      const next = { ...e };
      for (const k of Object.keys(patch)) delete next[k];
      return next;
    });
  };

  return (
    <Stack gap="md">
      <Text size="sm">
        Site : {site.nom ? `${site.nom} (${site.code})` : site.code} — {intervention.intervenant}
      </Text>
      <Text size="sm" c="dimmed" data-testid="derniere-modification">
        {lastChange ? `Modifiée par ${lastChange.agent} le ${formatParisDateTime(lastChange.at)}` : 'Jamais modifiée'}
      </Text>
      <ErrorBanner message={save.banner} />
      <DateTimePicker
        label="Date de l'intervention"
        withAsterisk
        valueFormat="DD/MM/YYYY HH:mm"
        maxDate={dayjs().format(DATE_FORMAT)}
        timePickerProps={{ format: '24h' }}
        value={date}
        onChange={(value) => {
          setDate(value);
          setErrors(({ date: _d, ...rest }) => rest);
        }}
        error={errors.date}
      />
      <InterventionBlockFields
        block={block}
        cells={cells}
        typeActions={typeActions}
        constantes={constantes}
        errorOf={(f: BlockField) => errors[f]}
        onChange={changeBlock}
      />
      {intervention.photos.length > 0 && (
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            Photos
          </Text>
          <InterventionPhotos photos={intervention.photos} what={photosSubject(intervention)} />
        </Stack>
      )}
      <FormDialogFooter saving={save.saving} onCancel={onClose} onSave={submit} />
    </Stack>
  );
}
