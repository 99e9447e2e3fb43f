// Calls of the site types screen.
import { api } from '../../lib/api';
import type { SiteTypeAdd } from '../../../shared/schemas/site-types';

export const siteTypesKeys = {
  all: ['siteTypes'] as const,
  list: ['siteTypes', 'list'] as const,
};

export const SITE_TYPES_LIST_URL = 'admin/typeSite/get/list/by/filters';

export const addSiteType = (payload: SiteTypeAdd) => api.post('admin/typeSite/add', { json: payload }).json<{ status: 'success'; message: string; id: number }>();
