// Public screens of the account domain, mounted by app/router.tsx outside the logged-in
// area. Each screen is its own chunk: the field screens never load them.
import type { RouteObject } from 'react-router';

export const accountRoutes: RouteObject[] = [
  { path: '/', lazy: async () => ({ Component: (await import('./login-page')).LoginPage }) },
  { path: '/login', lazy: async () => ({ Component: (await import('./login-page')).LoginPage }) },
  { path: '/signup', lazy: async () => ({ Component: (await import('./signup-page')).SignupPage }) },
  { path: '/confirmation/:token', lazy: async () => ({ Component: (await import('./confirmation-page')).ConfirmationPage }) },
  { path: '/password', lazy: async () => ({ Component: (await import('./password-request-page')).PasswordRequestPage }) },
  { path: '/reset/:token', lazy: async () => ({ Component: (await import('./password-reset-page')).PasswordResetPage }) },
];
