// Calls of the roles screen.
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../lib/api';
import type { Agent, RoleDetail, RoleUpdate } from '../../../shared/schemas/roles';

export const rolesKeys = {
  all: ['roles'] as const,
  list: ['roles', 'list'] as const,
  detail: (id: number) => ['roles', 'detail', id] as const,
  agents: (name: string) => ['roles', 'agents', name] as const,
};

export const ROLES_LIST_URL = 'admin/role/get/list/by/filters';

export const roleQuery = (id: number) => queryOptions({ queryKey: rolesKeys.detail(id), queryFn: () => api.get(`admin/role/get/${id}`).json<RoleDetail>(), staleTime: 0 });

export const agentSearchQuery = (name: string) =>
  queryOptions({
    queryKey: rolesKeys.agents(name),
    queryFn: ({ signal }) => api.get('admin/agent/get/by/name', { searchParams: { name }, signal }).json<Agent[]>(),
    staleTime: 0,
  });

export const updateRole = (id: number, payload: RoleUpdate) => api.put(`admin/role/update/${id}`, { json: payload }).json<{ status: 'success'; message?: string }>();
