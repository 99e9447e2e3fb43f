// Who is using the app (the current user). Filled from GET /api/logged by
// bootstrap.api.ts and from the login answer; every screen reads it from here.
import { create } from 'zustand';
import type { CurrentUser, Logged } from '../../shared/schemas/account';

export interface SessionState {
  id: number | null;
  username: string | null;
  nom: string | null;
  prenom: string | null;
  roles: string[];
  logged: boolean;
  /** The first answer about the session has arrived (from the server or, offline, the last known one). */
  fetched: boolean;
  /** Where a logged-out visitor was going when sent to /login; the login page returns there. */
  path: string | null;
  /** Why the session could not be loaded. */
  error: string | null;
  /** The session comes from the last known answer because the server could not be reached. */
  offline: boolean;
  applyLogged: (logged: Logged, options?: { offline?: boolean }) => void;
  setPath: (path: string | null) => void;
  setError: (error: string | null) => void;
}

const anonymous = { id: null, username: null, nom: null, prenom: null, roles: [] as string[], logged: false };

function fromUser(user: CurrentUser | null) {
  if (!user) return anonymous;
  return { id: user.id, username: user.username, nom: user.nom, prenom: user.prenom, roles: user.roles, logged: true };
}

export const useSessionStore = create<SessionState>()((set) => ({
  ...anonymous,
  fetched: false,
  path: null,
  error: null,
  offline: false,
  applyLogged: (logged, options) =>
    set({ ...fromUser(logged.logged ? logged.user : null), fetched: true, error: null, offline: options?.offline ?? false }),
  setPath: (path) => set({ path }),
  setError: (error) => set({ error }),
}));
