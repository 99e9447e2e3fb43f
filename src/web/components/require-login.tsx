// Layout route of the logged-in screens: a visitor is sent to /login, which brings them back
// here once logged in (session-store `path`).
import { useEffect } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { useSessionStore } from '../session/session-store';

export function RequireLogin() {
  const logged = useSessionStore((s) => s.logged);
  const path = useSessionStore((s) => s.path);
  const setPath = useSessionStore((s) => s.setPath);
  const location = useLocation();
  const target = location.pathname + location.search;
  useEffect(() => {
    if (!logged) setPath(target);
    // Arrived where the login page was asked to return: forget it.
    else if (path !== null) setPath(null);
  }, [logged, path, setPath, target]);
  if (!logged) return <Navigate to="/login" replace />;
  return <Outlet />;
}
