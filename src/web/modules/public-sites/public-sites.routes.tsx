import type { RouteObject } from 'react-router';

export const publicSitesRoutes: RouteObject[] = [];
