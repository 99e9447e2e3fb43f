// 'Programmer une permanence': the day, the start and end hours (Paris wall-clock time, as the
// API takes them), a title and a message, and 'Répéter' (a frequency and the day it stops). A
// start in the past, up to PERMANENCE_APRES_COUP_JOURS days back, records an opening that was
// not scheduled: the form says so and offers no repetition. The server checks the dates against
// its clock and lists every error at once; each shows under its field.
// With a permanence, the same form moves or retitles that one occurrence ('Modifier la
// permanence'): its series, if any, is left as it is, and repetition is not offered.
import { useState, type FormEvent } from 'react';
import { Alert, Checkbox, Group, NativeSelect, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import {
  PERMANENCE_APRES_COUP_JOURS,
  PERMANENCE_FREQUENCES,
  PERMANENCE_MESSAGE_MAX,
  PERMANENCE_MESSAGES,
  PERMANENCE_TITRE_MAX,
  type PermanenceAdd,
  type PermanenceFrequence,
  type PermanenceRow,
} from '../../../shared/schemas/permanences';
import type { FieldError } from '../../../shared/errors';
import { Dialog } from '../../components/dialog';
import { ErrorBanner, FormDialogFooter } from '../../components/form-dialog';
import { useSaveAction, FIELDS_REQUIRED } from '../../lib/form';
import { notifySuccess } from '../../lib/notify';
import { addPermanence, permanenceKeys, updatePermanence } from './permanences.api';
import { parisLocal, parisNowLocal } from './permanence-format';

type Field = 'date' | 'debut' | 'fin' | 'titre' | 'message' | 'frequence' | 'jusqua';

interface Values {
  date: string;
  debut: string;
  fin: string;
  titre: string;
  message: string;
  repeter: boolean;
  frequence: PermanenceFrequence;
  jusqua: string;
}

/** Where each of the server's keys shows (the day and start hour make `debut`). */
const SERVER_KEYS: Record<string, Field> = {
  debut: 'debut',
  fin: 'fin',
  titre: 'titre',
  message: 'message',
  recurrence: 'jusqua',
  'recurrence.frequence': 'frequence',
  'recurrence.jusqua': 'jusqua',
};

export const PAST_NOTE = `Cette permanence a déjà commencé : elle sera enregistrée comme ouverture non programmée (jusqu’à ${PERMANENCE_APRES_COUP_JOURS} jours en arrière), sans répétition.`;

/** The form's values of an existing occurrence, in Paris wall-clock time. */
function valuesOf(p: PermanenceRow): Values {
  const debut = parisLocal(p.debut);
  return { date: debut.slice(0, 10), debut: debut.slice(11), fin: parisLocal(p.fin).slice(11), titre: p.titre ?? '', message: p.message ?? '', repeter: false, frequence: 'hebdomadaire', jusqua: '' };
}

export function PermanenceFormDialog({ siteId, permanence, onClose }: { siteId: number; permanence?: PermanenceRow; onClose: () => void }) {
  const queryClient = useQueryClient();
  const editing = permanence !== undefined;
  const [values, setValues] = useState<Values>(() =>
    permanence ? valuesOf(permanence) : { date: '', debut: '', fin: '', titre: '', message: '', repeter: false, frequence: 'hebdomadaire', jusqua: '' },
  );
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const setServerErrors = (list: readonly FieldError[]) => {
    const mapped: Partial<Record<Field, string>> = {};
    const unmatched: FieldError[] = [];
    for (const e of list) {
      const field = SERVER_KEYS[e.key];
      if (field) mapped[field] ??= e.error;
      else unmatched.push(e);
    }
    setErrors(mapped);
    return unmatched;
  };
  const save = useSaveAction({ invalid: FIELDS_REQUIRED, serverMessage: true, setServerErrors });

  const set = <K extends keyof Values>(field: K, value: Values[K]) => {
    setValues((v) => ({ ...v, [field]: value }));
    setErrors((e) => ({ ...e, [field]: undefined, ...(field === 'date' ? { debut: undefined } : {}) }));
  };

  const start = values.date && values.debut ? `${values.date}T${values.debut}` : null;
  const past = !editing && start !== null && start < parisNowLocal();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found: Partial<Record<Field, string>> = {};
    if (!values.date) found.date = PERMANENCE_MESSAGES.debutRequired;
    if (!values.debut) found.debut = PERMANENCE_MESSAGES.debutRequired;
    if (!values.fin) found.fin = PERMANENCE_MESSAGES.finRequired;
    if (!editing && values.repeter && !past && !values.jusqua) found.jusqua = PERMANENCE_MESSAGES.jusquaRequired;
    if (Object.keys(found).length > 0) {
      setErrors(found);
      save.showInvalid();
      return;
    }
    setErrors({});
    if (permanence) {
      const changes = { debut: `${values.date}T${values.debut}`, fin: `${values.date}T${values.fin}`, titre: values.titre.trim() || null, message: values.message.trim() || null };
      void save.run(async () => {
        const answer = await updatePermanence(permanence.id, changes);
        notifySuccess(answer.message || PERMANENCE_MESSAGES.updated);
        await queryClient.invalidateQueries({ queryKey: permanenceKeys.all });
        onClose();
      });
      return;
    }
    const body: PermanenceAdd = {
      site: siteId,
      debut: `${values.date}T${values.debut}`,
      fin: `${values.date}T${values.fin}`,
      titre: values.titre.trim() || null,
      message: values.message.trim() || null,
      recurrence: values.repeter && !past ? { frequence: values.frequence, jusqua: values.jusqua } : null,
    };
    void save.run(async () => {
      const answer = await addPermanence(body);
      notifySuccess(answer.message || PERMANENCE_MESSAGES.added);
      await queryClient.invalidateQueries({ queryKey: permanenceKeys.all });
      onClose();
    });
  };

  return (
    <Dialog opened onClose={onClose} title={editing ? 'Modifier la permanence' : 'Programmer une permanence'} size="md">
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <ErrorBanner message={save.banner} />
          <TextInput type="date" label="Date" withAsterisk value={values.date} onChange={(e) => set('date', e.currentTarget.value)} error={errors.date} />
          <Group grow gap="sm" align="flex-start">
            <TextInput type="time" label="Début" withAsterisk value={values.debut} onChange={(e) => set('debut', e.currentTarget.value)} error={errors.debut} />
            <TextInput type="time" label="Fin" withAsterisk value={values.fin} onChange={(e) => set('fin', e.currentTarget.value)} error={errors.fin} />
          </Group>
          <Text size="xs" c="dimmed">
            Heure de Paris.
          </Text>
          {past && (
            <Alert color="blue" variant="light" role="note">
              {PAST_NOTE}
            </Alert>
          )}
          <TextInput label="Titre (facultatif)" maxLength={PERMANENCE_TITRE_MAX} value={values.titre} onChange={(e) => set('titre', e.currentTarget.value)} error={errors.titre} />
          <Textarea
            label="Message aux foyers (facultatif)"
            rows={3}
            maxLength={PERMANENCE_MESSAGE_MAX}
            value={values.message}
            onChange={(e) => set('message', e.currentTarget.value)}
            error={errors.message}
          />
          {!past && !editing && (
            <Checkbox label="Répéter" checked={values.repeter} onChange={(e) => set('repeter', e.currentTarget.checked)} />
          )}
          {!past && !editing && values.repeter && (
            <>
              <NativeSelect
                label="Fréquence"
                data={PERMANENCE_FREQUENCES.map((f) => ({ value: f.value, label: f.libelle }))}
                value={values.frequence}
                onChange={(e) => set('frequence', e.currentTarget.value as PermanenceFrequence)}
                error={errors.frequence}
              />
              <TextInput type="date" label="Jusqu’au" withAsterisk value={values.jusqua} onChange={(e) => set('jusqua', e.currentTarget.value)} error={errors.jusqua} />
            </>
          )}
          <FormDialogFooter saving={save.saving} onCancel={onClose} />
        </Stack>
      </form>
    </Dialog>
  );
}
