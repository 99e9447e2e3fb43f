// /admin: each role has its home screen (homePathFor of shared/permissions.ts); a role without one is logged out.
import { useEffect } from 'react';
import { Navigate } from 'react-router';
import { homePathFor } from '../../shared/permissions';
import { browser } from '../lib/browser';
import { FullScreenLoader } from '../components/full-screen-loader';
import { useSessionStore } from '../session/session-store';

export function AdminHome() {
  const roles = useSessionStore((s) => s.roles);
  const home = homePathFor(roles);
  useEffect(() => {
    // Not requestLogout(): with no screen to show there is nothing a guard could let the user do.
    if (home === null) browser.assign('/logout');
  }, [home]);
  if (home !== null) return <Navigate to={home} replace />;
  return <FullScreenLoader label="Redirection..." />;
}
