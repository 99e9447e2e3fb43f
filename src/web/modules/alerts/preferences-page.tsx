// /admin/alertes/preferences: which alerts the person receives in their daily e-mail (the
// digests link here). The kinds offered follow their roles; all are on until turned off.
import { useEffect, useState } from 'react';
import { Button, Checkbox, Group, Stack, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { can } from '../../../shared/permissions';
import { ALERT_LABELS, type AlertKind } from '../../../shared/schemas/alerts';
import { useSessionStore } from '../../session/session-store';
import { PageMessage } from '../../components/page-message';
import { PageTitle } from '../../components/page-title';
import { QueryState } from '../../components/query-state';
import { readFailure } from '../../lib/api';
import { notifyError, notifySuccess } from '../../lib/notify';
import { alertsKeys, preferencesQuery, savePreferences } from './alerts.api';

export function PreferencesPage() {
  const roles = useSessionStore((s) => s.roles);
  if (!can(roles, 'alert.view')) return <PageMessage title="Accès non authorisé.">Cet écran est réservé aux personnes qui suivent des sites.</PageMessage>;
  return <Preferences />;
}

function Preferences() {
  const prefs = useQuery(preferencesQuery());
  const queryClient = useQueryClient();
  const [received, setReceived] = useState<AlertKind[]>([]);
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (prefs.data) setReceived(prefs.data.recues.filter((k) => !prefs.data.desactivees.includes(k)));
  }, [prefs.data]);

  const save = async () => {
    if (!prefs.data) return;
    setSaving(true);
    try {
      const res = await savePreferences(prefs.data.recues.filter((k) => !received.includes(k)));
      queryClient.setQueryData(alertsKeys.preferences, res.preferences);
      notifySuccess(res.message);
    } catch (e) {
      const failure = await readFailure(e);
      notifyError(failure.message && failure.status !== null && failure.status < 500 ? failure.message : undefined);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Stack maw={640} mx="auto" gap="md">
      <PageTitle>Alertes reçues par e-mail</PageTitle>
      <Text size="sm" c="dimmed">
        Vous recevez au plus un e-mail par jour, quand de nouvelles alertes concernent les sites que vous suivez. Décochez les types d’alerte que vous ne
        souhaitez pas recevoir : ils restent visibles sur la page Alertes.
      </Text>
      <QueryState queries={[prefs]} detail="Vos choix n'ont pas pu être chargés.">
        {({ recues }) => (
          <>
            <Checkbox.Group label="Types d'alerte reçus" value={received} onChange={(v) => setReceived(v as AlertKind[])}>
              <Stack gap="xs" mt="xs">
                {recues.map((k) => (
                  <Checkbox key={k} value={k} label={ALERT_LABELS[k]} />
                ))}
              </Stack>
            </Checkbox.Group>
            <Group justify="flex-end">
              <Button loading={saving} onClick={() => void save()}>
                Enregistrer
              </Button>
            </Group>
          </>
        )}
      </QueryState>
    </Stack>
  );
}
