import type { RouteObject } from 'react-router';

export const requestsRoutes: RouteObject[] = [];
