// Calls of the alerts screens: the open alerts, the top bar's count, acknowledging, the
// thresholds, running the job now, and the person's e-mail preferences. The only fetch code
// of this module.
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../lib/api';
import { toQueryString } from '../../../shared/schemas/list';
import type { AlertKind, AlertList, AlertPreferences, AlertRunResult, AlertSettings, AlertSettingsInput } from '../../../shared/schemas/alerts';

export const ALERTS_LIST_URL = 'admin/alerte/get/list/by/filters';
export const ALERTS_PATH = '/admin/alertes';
export const SETTINGS_PATH = '/admin/alertes/seuils';
export const PREFERENCES_PATH = '/admin/alertes/preferences';

export const alertsKeys = {
  all: ['alerts'] as const,
  list: ['alerts', 'list'] as const,
  badge: ['alerts', 'badge'] as const,
  settings: ['alerts', 'settings'] as const,
  preferences: ['alerts', 'preferences'] as const,
};

/** Open alerts not acknowledged yet: the top bar's count. Refreshed every 5 minutes. */
export const badgeQuery = () =>
  queryOptions({
    queryKey: alertsKeys.badge,
    queryFn: async () => (await api.get(`${ALERTS_LIST_URL}?${toQueryString({ rowsPerPage: 5, filter: { acquittee: 0 } })}`).json<AlertList>()).count,
    staleTime: 60_000,
    refetchInterval: 5 * 60_000,
  });

export const acknowledgeAlert = (id: number) => api.put(`admin/alerte/ack/${id}`).json<{ status: 'success'; message: string }>();

export const settingsQuery = () => queryOptions({ queryKey: alertsKeys.settings, queryFn: () => api.get('admin/alerte/settings').json<AlertSettings>() });

export const saveSettings = (settings: AlertSettingsInput) =>
  api.put('admin/alerte/settings', { json: settings }).json<{ status: 'success'; message: string; settings: AlertSettings }>();

/** Runs the job now: it may take a while on a large programme. */
export const runAlerts = () => api.post('admin/alerte/run', { timeout: 120_000 }).json<AlertRunResult>();

export const preferencesQuery = () => queryOptions({ queryKey: alertsKeys.preferences, queryFn: () => api.get('alerte/preferences').json<AlertPreferences>() });

export const savePreferences = (desactivees: AlertKind[]) =>
  api.put('alerte/preferences', { json: { desactivees } }).json<{ status: 'success'; message: string; preferences: AlertPreferences }>();
