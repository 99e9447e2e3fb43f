// Calls of the composter types screen.
import { api } from '../../lib/api';
import type { ComposterAdd } from '../../../shared/schemas/composters';

export const compostersKeys = {
  all: ['composters'] as const,
  list: ['composters', 'list'] as const,
};

export const COMPOSTERS_LIST_URL = 'admin/typeComposteur/get/list/by/filters';

export const addComposter = (payload: ComposterAdd) =>
  api.post('admin/typeComposteur/add', { json: payload }).json<{ status: 'success'; message: string; id: number }>();
