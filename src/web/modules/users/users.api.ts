// Calls of the users administration screen: query keys,
// queries and the state-changing calls. The only fetch code of this module.
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../lib/api';
import type { IdLibelle } from '../../../shared/schemas/reference';
import type { SiteOption, UserSitesUpdate, UserTypeUpdate } from '../../../shared/schemas/users';

export const usersKeys = {
  all: ['users'] as const,
  list: ['users', 'list'] as const,
  sites: (userId: number) => ['users', 'sites', userId] as const,
};

type Saved = { status: 'success'; message?: string };

export const USERS_LIST_URL = 'admin/user/get/list/by/filters';

export const userTypesQuery = () =>
  queryOptions({ queryKey: ['reference', 'typeUsers'] as const, queryFn: () => api.get('typeUser/get/all').json<IdLibelle[]>(), staleTime: 5 * 60_000 });

export const allSitesQuery = () =>
  queryOptions({ queryKey: ['users', 'allSites'] as const, queryFn: () => api.get('admin/user/get/all/sites').json<SiteOption[]>(), staleTime: 0 });

export const userSitesQuery = (userId: number) =>
  queryOptions({ queryKey: usersKeys.sites(userId), queryFn: () => api.get(`admin/user/get/sites/${userId}`).json<SiteOption[]>(), staleTime: 0 });

export const activateUser = (id: number) => api.put(`admin/user/active/${id}`).json<Saved>();
export const refuseUser = (id: number) => api.put(`admin/user/refuse/${id}`).json<Saved>();
export const deleteUser = (id: number) => api.put(`admin/user/delete/${id}`).json<Saved>();
export const updateUserType = (id: number, payload: UserTypeUpdate) => api.put(`admin/user/update/typeUser/${id}`, { json: payload }).json<Saved>();
export const updateUserSites = (id: number, payload: UserSitesUpdate) => api.put(`admin/user/update/site/${id}`, { json: payload }).json<Saved>();
