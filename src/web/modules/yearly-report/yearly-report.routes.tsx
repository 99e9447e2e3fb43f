import type { RouteObject } from 'react-router';

export const yearlyReportRoutes: RouteObject[] = [];
