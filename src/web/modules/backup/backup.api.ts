// The backup's status and 'Sauvegarder maintenant' (ROLE_ADMIN).
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../lib/api';
import type { BackupStatusBody } from '../../../shared/schemas/backup';

export const backupKeys = { status: ['backup', 'status'] as const };

export const backupStatusQuery = () =>
  queryOptions({ queryKey: backupKeys.status, queryFn: () => api.get('admin/sauvegarde/status').json<BackupStatusBody>(), staleTime: 60_000 });

export const runBackup = () => api.post('admin/sauvegarde/run').json<{ status: 'success'; message: string }>();
