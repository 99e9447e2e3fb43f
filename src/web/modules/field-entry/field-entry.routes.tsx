// Screens of the field entry (recording interventions on a site, on a phone, with or without
// network), mounted by app/router.tsx. Every screen is its own chunk (the field screens stay
// small); the service worker precaches them all, so they open offline. Importing this file also
// plugs the offline outbox into the shell (top-bar badge, logout warning, offline fallbacks of
// the bootstrap queries). The administration of recorded interventions is modules/interventions.
import type { RouteObject } from 'react-router';
import { setupFieldEntry } from './field-entry.setup';

setupFieldEntry();

export const fieldEntryRoutes: RouteObject[] = [
  { path: '/admin/choix/site', lazy: async () => ({ Component: (await import('./site-choice-page')).SiteChoicePage }) },
  { path: '/admin/fiche/site/:id', lazy: async () => ({ Component: (await import('./site-sheet-page')).SiteSheetPage }) },
  { path: '/admin/fiche/site/:id/etiquettes', lazy: async () => ({ Component: (await import('./site-labels-page')).SiteLabelsPage }) },
  { path: '/admin/envois', lazy: async () => ({ Component: (await import('./outbox-page')).OutboxPage }) },
];

export const fieldEntryPublicRoutes: RouteObject[] = [
  { path: '/interventions/site/:id', lazy: async () => ({ Component: (await import('./site-interventions-page')).SiteInterventionsPage }) },
];
