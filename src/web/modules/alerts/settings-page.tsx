// /admin/alertes/seuils "Seuils d'alerte" (ROLE_ADMIN): the thresholds of the alerts, and
// 'Lancer maintenant', which runs the daily job at once and says what it did. The kilos per
// bucket, which the permanences' tallies estimate their kilos with, sit here with the other
// programme-wide estimate (the density).
import { useEffect, useState } from 'react';
import { Anchor, Button, Group, NumberInput, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { can } from '../../../shared/permissions';
import { KG_PAR_SEAU_LABEL, KG_PAR_SEAU_MAX, alertSettingsSchema, type AlertSettings } from '../../../shared/schemas/alerts';
import { useSessionStore } from '../../session/session-store';
import { ErrorBanner } from '../../components/form-dialog';
import { PageMessage } from '../../components/page-message';
import { PageTitle } from '../../components/page-title';
import { QueryState } from '../../components/query-state';
import { readFailure } from '../../lib/api';
import { GENERIC_ERROR, useZodForm } from '../../lib/form';
import { notifyError, notifySuccess } from '../../lib/notify';
import { ALERTS_PATH, alertsKeys, runAlerts, saveSettings, settingsQuery } from './alerts.api';

export function SettingsPage() {
  const roles = useSessionStore((s) => s.roles);
  if (!can(roles, 'alert.settings')) return <PageMessage title="Accès non authorisé.">Cet écran est réservé aux administrateurs.</PageMessage>;
  return <SettingsScreen />;
}

type Values = { [K in keyof AlertSettings]: number | string };
const FIELDS = ['temperatureMin', 'temperatureMax', 'joursSansReleve', 'joursSansIntervention', 'pourcentageApport', 'limiteHebdoKg', 'densiteKgParLitre', 'kgParSeau'] as const;

function SettingsScreen() {
  const settings = useQuery(settingsQuery());
  return (
    <Stack maw={760} mx="auto" gap="md">
      <PageTitle>{"Seuils d'alerte"}</PageTitle>
      <Text size="sm" c="dimmed">
        Les alertes sont calculées chaque jour ; une alerte s’ouvre une fois par cause et se ferme d’elle-même quand la cause disparaît. Les valeurs
        proposées à l’installation sont des estimations à ajuster à votre programme.
      </Text>
      <QueryState queries={[settings]} detail="Les seuils n'ont pas pu être chargés.">
        {(initial) => <SettingsForm initial={initial} />}
      </QueryState>
      <RunNow />
    </Stack>
  );
}

function SettingsForm({ initial }: { initial: AlertSettings }) {
  const queryClient = useQueryClient();
  const [banner, setBanner] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const form = useZodForm(alertSettingsSchema, { initialValues: { ...initial } as Values, blankAsMissing: [...FIELDS] });
  useEffect(() => {
    form.setInitialValues({ ...initial });
    // Only when the server's copy changes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [initial]);

  const submit = form.onSubmit(
    async (payload) => {
      setSaving(true);
      setBanner(null);
      try {
        const res = await saveSettings(payload);
        notifySuccess(res.message);
        queryClient.setQueryData(alertsKeys.settings, res.settings);
      } catch (e) {
        const failure = await readFailure(e);
        const rest = form.setServerErrors(failure.errors);
        const message = failure.status === 400 ? 'Veuillez vérifier votre saisie' : (failure.message ?? GENERIC_ERROR);
        setBanner(rest.length ? `${message} : ${rest.map((r) => r.error).join(', ')}` : message);
      } finally {
        setSaving(false);
      }
    },
    () => setBanner('Veuillez vérifier votre saisie'),
  );

  return (
    <form onSubmit={submit} noValidate aria-label="Seuils d'alerte">
      <Stack gap="md">
        <ErrorBanner message={banner} />
        <Title order={3} size="h5">
          Températures
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <NumberInput label="Température minimale (°C)" description="Un relevé plus bas ouvre « Température trop basse »" decimalScale={1} decimalSeparator="," {...form.getInputProps('temperatureMin')} />
          <NumberInput label="Température maximale (°C)" description="Un relevé plus haut ouvre « Température trop haute »" decimalScale={1} decimalSeparator="," {...form.getInputProps('temperatureMax')} />
          <NumberInput
            label="Jours sans relevé de température"
            description="Sur une cellule d’apport ou de maturation active"
            allowDecimal={false}
            min={1}
            max={365}
            {...form.getInputProps('joursSansReleve')}
          />
          <NumberInput label="Jours sans intervention" description="Sur un site actif" allowDecimal={false} min={1} max={365} {...form.getInputProps('joursSansIntervention')} />
        </SimpleGrid>
        <Title order={3} size="h5">
          Apports
        </Title>
        <Text size="sm" c="dimmed">
          Les apports d’un site sont estimés à partir des litres transférés hors des bacs d’apport sur les 4 dernières semaines, convertis en kilogrammes avec
          la densité. Un site de compostage partagé au régime simplifié reste sous 1 tonne de biodéchets par semaine.
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <NumberInput label="Limite hebdomadaire (kg)" allowDecimal={false} min={1} max={100000} thousandSeparator=" " {...form.getInputProps('limiteHebdoKg')} />
          <NumberInput label="Alerte à partir de (% de la limite)" allowDecimal={false} min={1} max={100} suffix=" %" {...form.getInputProps('pourcentageApport')} />
          <NumberInput label="Densité des biodéchets (kg/L)" decimalScale={3} decimalSeparator="," min={0} max={2} step={0.05} {...form.getInputProps('densiteKgParLitre')} />
        </SimpleGrid>
        <Title order={3} size="h5">
          Permanences
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <NumberInput
            label={KG_PAR_SEAU_LABEL}
            description="Sans pesée, les kilos d’une permanence sont estimés : seaux apportés × ce poids"
            decimalScale={2}
            decimalSeparator=","
            min={0}
            max={KG_PAR_SEAU_MAX}
            step={0.5}
            {...form.getInputProps('kgParSeau')}
          />
        </SimpleGrid>
        <Group justify="flex-end">
          <Button type="submit" loading={saving}>
            Enregistrer
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function RunNow() {
  const queryClient = useQueryClient();
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const run = async () => {
    setRunning(true);
    setResult(null);
    try {
      const res = await runAlerts();
      setResult(res.message);
      notifySuccess(res.message);
      await queryClient.invalidateQueries({ queryKey: alertsKeys.list });
      await queryClient.invalidateQueries({ queryKey: alertsKeys.badge });
    } catch (e) {
      const failure = await readFailure(e);
      notifyError(failure.message && failure.status !== null && failure.status < 500 ? failure.message : undefined);
    } finally {
      setRunning(false);
    }
  };
  return (
    <Stack gap="xs" mt="md">
      <Title order={3} size="h5">
        Calcul des alertes
      </Title>
      <Text size="sm" c="dimmed">
        Le calcul a lieu chaque jour à l’heure prévue par le serveur. Vous pouvez le lancer maintenant : les personnes concernées reçoivent au plus un e-mail
        par jour.
      </Text>
      <Group>
        <Button variant="light" loading={running} onClick={() => void run()}>
          Lancer maintenant
        </Button>
        <Anchor component={Link} to={ALERTS_PATH} size="sm">
          Voir les alertes
        </Anchor>
      </Group>
      {result && (
        <Text size="sm" role="status">
          {result}
        </Text>
      )}
    </Stack>
  );
}
