// Which absolute paths the route tree actually mounts, so the drawer only links to screens
// that exist (a screen not built yet is simply absent).
import type { RouteObject } from 'react-router';

function join(parent: string, path: string): string {
  if (path.startsWith('/')) return normalise(path);
  return normalise(`${parent}/${path}`);
}

function normalise(path: string): string {
  const collapsed = path.replace(/\/+/g, '/');
  return collapsed.length > 1 ? collapsed.replace(/\/$/, '') : collapsed;
}

export function collectPaths(routes: readonly RouteObject[], parent = '/'): Set<string> {
  const out = new Set<string>();
  for (const route of routes) {
    const here = route.path === undefined ? parent : join(parent, route.path);
    if (route.path !== undefined || route.index) out.add(here);
    if (route.children) for (const p of collectPaths(route.children, here)) out.add(p);
  }
  return out;
}
