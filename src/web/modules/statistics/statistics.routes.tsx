import type { RouteObject } from 'react-router';

export const statisticsRoutes: RouteObject[] = [];
