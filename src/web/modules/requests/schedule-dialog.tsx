// 'Programmer' on the requests board: the site and, per request, the action to do and its
// 'Date prévue de réalisation' (dd/MM/yyyy, from today to the due date, Europe/Paris days; an
// overdue request, whose window would be empty, from today to today plus its rule's delay).
// Each item sends the due date and action shown, so that a request changed meanwhile is
// refused ('La demande a changé, rechargez la page.') instead of planned blind. For a selection,
// 'Même date pour toutes' fills every request's date at once; each is still checked against its
// own window, and every one outside it is shown at once. The selection is planned as a whole or
// not at all, and the toast says how many.
import { useEffect, useState } from 'react';
import { Divider, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { DateInput } from '@mantine/dates';
import { useQueryClient } from '@tanstack/react-query';
import { formatParisDate, parisDayValue } from '../../../shared/dates';
import { REQUEST_MESSAGES, overdueLabel, planningWindow, scheduledCountLabel, type DemandeIntervention } from '../../../shared/schemas/requests';
import { readFailure } from '../../lib/api';
import { refusalMessage } from '../../lib/form';
import { Dialog } from '../../components/dialog';
import { ErrorBanner, FormDialogFooter } from '../../components/form-dialog';
import { requestsKeys, scheduleRequests } from './requests.api';

export const SCHEDULE_REQUIRED_MESSAGE = REQUEST_MESSAGES.required;
const CALENDAR_ABOVE = { position: 'top', middlewares: { flip: false, shift: true } } as const;

/** '05/03/2026' (or 5/3/2026) -> '2026-03-05'; anything else -> null. */
export function parseDay(input: string): string | null {
  const m = /^\s*(\d{1,2})\/(\d{1,2})\/(\d{4})\s*$/.exec(input);
  if (!m) return null;
  const [day, month, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return null;
  return `${m[3]}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

export function ScheduleDialog({ opened, demandes, onClose, onDone }: { opened: boolean; demandes: DemandeIntervention[]; onClose: () => void; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [dates, setDates] = useState<Record<number, string | null>>({});
  const [errors, setErrors] = useState<Record<number, string>>({});
  const [common, setCommon] = useState<string | null>(null);
  const [banner, setBanner] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const today = parisDayValue(new Date())!;
  const windowOf = (d: DemandeIntervention) => planningWindow(parisDayValue(d.dateEcheance)!, today, d.delaiJours);
  const frDay = (day: string) => day.split('-').reverse().join('/');

  useEffect(() => {
    if (!opened) return;
    // A planned request starts from its planned day.
    setDates(Object.fromEntries(demandes.map((d) => [d.id, d.dateProgrammee ? parisDayValue(d.dateProgrammee) : null])));
    setErrors({});
    setCommon(null);
    setBanner(null);
  }, [opened, demandes]);

  /** Why a request's day cannot be sent, if it cannot. */
  const refusalOf = (d: DemandeIntervention, day: string | null | undefined) => {
    const range = windowOf(d);
    if (!day) return REQUEST_MESSAGES.dateRequired;
    if (day < range.min || day > range.max) return `Entre le ${frDay(range.min)} et le ${frDay(range.max)}`;
    return null;
  };

  /** 'Même date pour toutes': every date at once, and every request that cannot take it said at once. */
  const fillAll = (day: string | null) => {
    setCommon(day);
    setDates(Object.fromEntries(demandes.map((d) => [d.id, day])));
    const found: Record<number, string> = {};
    for (const d of demandes) {
      const refusal = day ? refusalOf(d, day) : null;
      if (refusal) found[d.id] = refusal;
    }
    setErrors(found);
  };

  const save = async () => {
    const found: Record<number, string> = {};
    for (const d of demandes) {
      const refusal = refusalOf(d, dates[d.id]);
      if (refusal) found[d.id] = refusal;
    }
    setErrors(found);
    if (Object.keys(found).length > 0) return setBanner(SCHEDULE_REQUIRED_MESSAGE);
    setSaving(true);
    setBanner(null);
    try {
      const res = await scheduleRequests(
        demandes.map((d) => ({ demandeIntervention: d.id, date: dates[d.id]!, dateEcheance: d.dateEcheance, actionProgrammee: d.idActionProgrammee })),
      );
      // How many, above the contract's own message.
      notifications.show({ title: scheduledCountLabel(res.count), message: res.message, color: 'green', autoClose: 3000 });
      await queryClient.invalidateQueries({ queryKey: requestsKeys.all });
      onDone();
    } catch (e) {
      const failure = await readFailure(e);
      // Each item's refusal under its date: a 400's field errors, and the requests a 404 or a
      // 409 names (a day outside its window, a request closed or changed meanwhile).
      const byIndex: Record<number, string> = {};
      for (const err of failure.errors) {
        const m = /^values(\d+)(\..*)?$/.exec(err.key);
        const d = m ? demandes[Number(m[1])] : undefined;
        if (d && !(d.id in byIndex)) byIndex[d.id] = err.error;
      }
      setErrors(byIndex);
      if (failure.status === 400) {
        setBanner(SCHEDULE_REQUIRED_MESSAGE);
      } else {
        setBanner(refusalMessage(failure));
        // Someone changed or closed a request meanwhile: the board behind shows it as it is now.
        if (failure.status === 409) void queryClient.invalidateQueries({ queryKey: requestsKeys.all });
      }
    } finally {
      setSaving(false);
    }
  };

  return (
    // Escape in an open calendar closes the calendar only (components/dialog.tsx).
    <Dialog opened={opened} onClose={onClose} title="Programmer" centered>
      <Stack gap="md">
        <ErrorBanner message={banner} />
        <Text fw={600}>Site : {demandes[0]?.site}</Text>
        {demandes.length > 1 && (
          <>
            <DateInput
              label="Même date pour toutes"
              description="Remplit la date prévue de chaque demande ; chacune reste dans sa propre période"
              valueFormat="DD/MM/YYYY"
              dateParser={parseDay}
              placeholder="jj/mm/aaaa"
              popoverProps={CALENDAR_ABOVE}
              minDate={today}
              // The latest day one of them may take: the others say so under their own date.
              maxDate={demandes.map((d) => windowOf(d).max).reduce((a, b) => (a > b ? a : b))}
              value={common}
              onChange={fillAll}
            />
            <Divider />
          </>
        )}
        {demandes.map((d) => {
          const range = windowOf(d);
          return (
            <Stack key={d.id} gap={4}>
              <Text size="sm">
                A faire : {d.actionProgrammee} (cellule n°{d.numero}) – échéance le {formatParisDate(d.dateEcheance)}
              </Text>
              {range.overdueDays > 0 && (
                <Text size="sm" c="red" fw={700}>
                  {overdueLabel(range.overdueDays)}
                </Text>
              )}
              <DateInput
                label="Date prévue de réalisation"
                withAsterisk
                valueFormat="DD/MM/YYYY"
                dateParser={parseDay}
                placeholder="jj/mm/aaaa"
                // Above its field, never flipped below it: the calendar leaves 'Enregistrer' in sight.
                popoverProps={CALENDAR_ABOVE}
                minDate={range.min}
                maxDate={range.max}
                value={dates[d.id] ?? null}
                onChange={(v) => {
                  setDates((s) => ({ ...s, [d.id]: v }));
                  setErrors((s) => {
                    const next = { ...s };
                    delete next[d.id];
                    return next;
                  });
                }}
                error={errors[d.id]}
              />
            </Stack>
          );
        })}
        <FormDialogFooter saving={saving} onCancel={onClose} onSave={() => void save()} />
      </Stack>
    </Dialog>
  );
}
