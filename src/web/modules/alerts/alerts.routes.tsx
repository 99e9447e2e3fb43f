import type { RouteObject } from 'react-router';

export const alertsRoutes: RouteObject[] = [];
