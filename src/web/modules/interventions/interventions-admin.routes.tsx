import type { RouteObject } from 'react-router';

export const interventionsAdminRoutes: RouteObject[] = [];
