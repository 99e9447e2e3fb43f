// Screens of the permanences (the openings of a site), mounted by app/router.tsx (filled in next).
import type { RouteObject } from 'react-router';

export const permanencesRoutes: RouteObject[] = [];
