// Calls of the account screens (signup, confirmation, password reset, login and the user types).
import { queryOptions } from '@tanstack/react-query';
import { api, quietApi } from '../../lib/api';
import type { CurrentUser, LoginInput, PasswordUpdateInput } from '../../../shared/schemas/account';
import type { IdLibelle } from '../../../shared/schemas/reference';
import type { z } from 'zod';
import type { signupSchema } from '../../../shared/schemas/account';

export type SignupPayload = z.output<typeof signupSchema>;

export const typeUsersQuery = () =>
  queryOptions({
    queryKey: ['reference', 'typeUsers'] as const,
    queryFn: () => api.get('typeUser/get/all').json<IdLibelle[]>(),
    staleTime: Infinity,
  });

/** Quiet: a refused login is an answer to show, not a reason to leave the page. */
export function login(input: LoginInput) {
  return quietApi.post('login', { json: input }).json<{ status: 'success'; user: CurrentUser }>();
}

export function signup(payload: SignupPayload) {
  return api.post('signup', { json: payload }).json<{ status: 'success' }>();
}

export const confirmationQuery = (token: string) =>
  queryOptions({
    // One PUT per page visit even when React mounts the screen twice.
    queryKey: ['account', 'confirmation', token] as const,
    queryFn: () => api.put(`confirmation/${encodeURIComponent(token)}`).json<{ status: 'success' }>(),
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
  });

export function requestPasswordReset(mail: string) {
  return api.put('password', { json: { mail } }).json<{ status: 'success' }>();
}

export const resetTokenQuery = (token: string) =>
  queryOptions({
    queryKey: ['account', 'resetToken', token] as const,
    queryFn: () => api.get(`password/reset/${encodeURIComponent(token)}`).json<{ status: 'success' }>(),
    retry: false,
    staleTime: Infinity,
  });

export function updatePassword(token: string, input: PasswordUpdateInput) {
  return api.put(`password/update/${encodeURIComponent(token)}`, { json: input }).json<{ status: 'success' }>();
}
