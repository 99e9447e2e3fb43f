// 'Saisir le bilan' of a permanence that started: households received, buckets brought, the
// kilos weighed (optional: left empty, the server estimates them from the buckets and says so)
// and an optional temperature. Checked with the API's own schema, then written to the phone's
// outbox and sent from there, like an intervention: without network it waits on the phone and
// leaves by itself; a replay is harmless (the server stores one tally per clientId). A tally
// the server refused reopens here with its errors under the fields (`entry`), keeping its
// clientId.
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { bilanSchema, PERMANENCE_MESSAGES, type BilanInput, type PermanenceRow } from '../../../shared/schemas/permanences';
import { issuesToFieldErrors, type FieldError } from '../../../shared/errors';
import { Dialog } from '../../components/dialog';
import { fieldsToFix } from '../../components/form-dialog';
import { notifySuccess } from '../../lib/notify';
import { newClientId } from '../../offline/client-id';
import { offlineUnavailableMessage } from '../../offline/capability';
import { submitBilan } from '../../offline/outbox-runner';
import type { BilanEntry } from '../../offline/outbox';
import { useSessionStore } from '../../session/session-store';
import { formatPermanenceWhen } from './permanence-format';
import { EntryBanner } from '../field-entry/public';

export const BILAN_QUEUED_MESSAGE = 'Bilan enregistré sur le téléphone, il sera envoyé dès le retour du réseau';
export const BILAN_NOT_SENT_MESSAGE = 'Bilan non enregistré : pas de réseau. Il est toujours dans le formulaire : enregistrez-le de nouveau dès que possible.';
export const BILAN_INVALID_MESSAGE = 'Veuillez corriger les champs signalés';
const KG_HINT = 'Laissé vide, le poids est estimé à partir des seaux';

type Field = 'foyers' | 'seaux' | 'kg' | 'temperature';
/** As typed: plain text inputs with the phone's number keyboard, a decimal comma accepted. */
type Values = Record<Field, string>;

const FIELDS: readonly Field[] = ['foyers', 'seaux', 'kg', 'temperature'];

const shown = (n: number | null | undefined) => (n === null || n === undefined ? '' : String(n).replace('.', ','));

function initialValues(entry: BilanEntry | null): Values {
  if (!entry) return { foyers: '', seaux: '', kg: '', temperature: '' };
  const p = entry.payload;
  return { foyers: shown(p.foyers), seaux: shown(p.seaux), kg: shown(p.kg), temperature: shown(p.temperature) };
}

/** '12,5' -> 12.5; '' -> null; anything else -> NaN, which the schema refuses with the field's message. */
function typed(text: string): number | null {
  const t = text.trim().replace(',', '.');
  if (t === '') return null;
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : Number.NaN;
}

function errorsByField(errors: readonly FieldError[]): { fields: Partial<Record<Field, string>>; others: string[] } {
  const fields: Partial<Record<Field, string>> = {};
  const others: string[] = [];
  for (const e of errors) {
    if ((FIELDS as readonly string[]).includes(e.key)) fields[e.key as Field] ??= e.error;
    else others.push(e.error);
  }
  return { fields, others };
}

export interface BilanDialogProps {
  permanence: Pick<PermanenceRow, 'id' | 'idSite' | 'debut' | 'fin'>;
  siteLabel: string;
  /** A tally the server refused, to correct. */
  entry: BilanEntry | null;
  onClose: () => void;
}

export function BilanDialog({ permanence, siteLabel, entry, onClose }: BilanDialogProps) {
  const userId = useSessionStore((s) => s.id);
  const username = useSessionStore((s) => s.username);
  // The tally's identity: kept across corrections so the server can never store it twice.
  const [clientId] = useState(() => entry?.clientId ?? newClientId());
  const [stored, setStored] = useState(entry !== null);
  const [values, setValues] = useState<Values>(() => initialValues(entry));
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>(() => (entry ? errorsByField(entry.fieldErrors).fields : {}));
  const [banner, setBanner] = useState<{ title: string; lines: string[] } | null>(() =>
    entry?.lastError ? { title: entry.lastError, lines: entry ? errorsByField(entry.fieldErrors).others : [] } : null,
  );
  const [saving, setSaving] = useState(false);
  const [notKept] = useState(() => offlineUnavailableMessage());

  const set = (field: Field) => (event: ChangeEvent<HTMLInputElement>) => {
    const value = event.currentTarget.value;
    setValues((v) => ({ ...v, [field]: value }));
    setErrors((e) => ({ ...e, [field]: undefined }));
  };

  const showErrors = (list: readonly FieldError[], title: string) => {
    const { fields, others } = errorsByField(list);
    setErrors(fields);
    setBanner({ title, lines: others });
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (saving || userId === null) return;
    setBanner(null);
    // A missing count is sent to the schema as missing, so that it says which field to fill.
    const payload = {
      clientId,
      foyers: typed(values.foyers) ?? undefined,
      seaux: typed(values.seaux) ?? undefined,
      kg: typed(values.kg),
      temperature: typed(values.temperature),
    } as BilanInput;
    const parsed = bilanSchema.safeParse(payload);
    if (!parsed.success) {
      showErrors(issuesToFieldErrors(parsed.error.issues), BILAN_INVALID_MESSAGE);
      return;
    }
    setErrors({});
    setSaving(true);
    try {
      const outcome = await submitBilan(
        payload,
        {
          ownerId: userId,
          ownerName: username ?? '',
          siteLabel,
          bilan: { site: permanence.idSite, permanence: permanence.id, debut: permanence.debut, fin: permanence.fin },
        },
        // A tally already on the phone (a correction) stays there; a new one only where the phone can keep it.
        { correcting: stored, keepUnsent: notKept === null || stored },
      );
      if (outcome.kind !== 'notSent') setStored(true);
      switch (outcome.kind) {
        case 'sent':
          notifySuccess(PERMANENCE_MESSAGES.bilanSaved);
          onClose();
          return;
        case 'queued':
        case 'auth':
          notifications.show({ message: BILAN_QUEUED_MESSAGE, color: 'blue', autoClose: 6000 });
          onClose();
          return;
        case 'notSent':
          setBanner({ title: BILAN_NOT_SENT_MESSAGE, lines: [] });
          return;
        case 'invalid':
          showErrors(outcome.errors, outcome.message || BILAN_INVALID_MESSAGE);
          return;
        case 'rejected':
          setBanner({ title: outcome.message, lines: ['Le bilan reste dans la liste des envois, où vous pouvez le renvoyer ou le supprimer.'] });
          return;
      }
    } catch {
      setBanner({ title: 'Une erreur est survenue', lines: ['Le bilan n’a pas pu être enregistré sur le téléphone.'] });
    } finally {
      setSaving(false);
    }
  };

  const errorCount = Object.values(errors).filter(Boolean).length;
  const when = formatPermanenceWhen(permanence.debut, permanence.fin);

  return (
    <Dialog opened onClose={onClose} title={entry ? 'Corriger le bilan' : 'Saisir le bilan'} fullScreen={false} size="md">
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="sm">
          <Text size="sm">Permanence du {when}</Text>
          {banner && (
            <EntryBanner banner={banner} stored={stored} />
          )}
          <TextInput label="Foyers reçus" withAsterisk inputMode="numeric" autoComplete="off" value={values.foyers} onChange={set('foyers')} error={errors.foyers} />
          <TextInput label="Seaux apportés" withAsterisk inputMode="numeric" autoComplete="off" value={values.seaux} onChange={set('seaux')} error={errors.seaux} />
          <TextInput label="Kilos pesés (facultatif)" description={KG_HINT} inputMode="decimal" autoComplete="off" rightSection="kg" value={values.kg} onChange={set('kg')} error={errors.kg} />
          {values.kg.trim() === '' && (
            <Text size="sm" c="dimmed" aria-live="polite">
              Kilos : estimés à partir des seaux
            </Text>
          )}
          <TextInput label="Température (°C, facultatif)" inputMode="decimal" autoComplete="off" value={values.temperature} onChange={set('temperature')} error={errors.temperature} />
          <Group justify="flex-end" gap="sm">
            <div aria-live="polite">
              {errorCount > 0 && (
                <Text c="red" fw={600} size="sm">
                  {fieldsToFix(errorCount)}
                </Text>
              )}
            </div>
            <Button variant="default" onClick={onClose}>
              Annuler
            </Button>
            <Button type="submit" loading={saving}>
              Enregistrer
            </Button>
          </Group>
        </Stack>
      </form>
    </Dialog>
  );
}
