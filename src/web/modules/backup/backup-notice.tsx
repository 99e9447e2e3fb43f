// The administrator's home (the sites screen) says when the last backup was made, and in red
// when the backups are overdue (a failed attempt, or none for two days), with a button that
// makes one now. Nothing shows for other roles, nor while the status loads.
import { useState } from 'react';
import { Alert, Button, Group, Text } from '@mantine/core';
import { IconDatabaseExport } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { can } from '../../../shared/permissions';
import { useSessionStore } from '../../session/session-store';
import { readFailure, NETWORK_ERROR_MESSAGE } from '../../lib/api';
import { notifyError, notifySuccess } from '../../lib/notify';
import { backupKeys, backupStatusQuery, runBackup } from './backup.api';

const when = new Intl.DateTimeFormat('fr-FR', { timeZone: 'Europe/Paris', dateStyle: 'short', timeStyle: 'short' });
const size = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 });
const formatSize = (bytes: number) => (bytes < 1024 * 1024 ? `${size.format(bytes / 1024)} Ko` : `${size.format(bytes / 1024 / 1024)} Mo`);

export function BackupNotice() {
  const roles = useSessionStore((s) => s.roles);
  const allowed = can(roles, 'backup.manage');
  const status = useQuery({ ...backupStatusQuery(), enabled: allowed });
  const client = useQueryClient();
  const [running, setRunning] = useState(false);
  if (!allowed || !status.data) return null;
  const s = status.data;

  async function runNow() {
    setRunning(true);
    try {
      const done = await runBackup();
      notifySuccess(done.message);
    } catch (e) {
      const failure = await readFailure(e);
      notifyError(failure.network ? NETWORK_ERROR_MESSAGE : (failure.message ?? undefined));
    } finally {
      setRunning(false);
      await client.invalidateQueries({ queryKey: backupKeys.status });
    }
  }

  const last = s.derniere ? `Dernière sauvegarde : ${when.format(new Date(s.derniere))}${s.taille !== null ? ` (${formatSize(s.taille)})` : ''}` : 'Aucune sauvegarde pour le moment';
  const button = (
    <Button size="xs" variant={s.enRetard ? 'filled' : 'default'} color={s.enRetard ? 'red' : undefined} leftSection={<IconDatabaseExport size={14} aria-hidden />} loading={running} onClick={runNow}>
      Sauvegarder maintenant
    </Button>
  );
  if (s.enRetard) {
    return (
      <Alert color="red" title="Sauvegardes en retard" mb="sm" role="alert">
        <Text size="sm">{s.erreur ? `La dernière sauvegarde a échoué : ${s.erreur}` : 'Aucune sauvegarde depuis plus de deux jours.'}</Text>
        <Group justify="space-between" mt="xs" gap="xs">
          <Text size="sm">{last}.</Text>
          {button}
        </Group>
      </Alert>
    );
  }
  return (
    <Group justify="flex-end" gap="xs" mb="xs">
      <Text size="sm" c="dimmed" role="status">
        {last}
      </Text>
      {button}
    </Group>
  );
}
