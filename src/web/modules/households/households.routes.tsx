// Screens of the households of a site, mounted by app/router.tsx (filled in next).
import type { RouteObject } from 'react-router';

export const householdsRoutes: RouteObject[] = [];
export const householdsPublicRoutes: RouteObject[] = [];
