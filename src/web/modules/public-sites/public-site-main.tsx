// Entry of the public page of a site (public-site.html, served by the server at /s/{code}):
// React and the page alone, without the app's shell, its component library or its service
// worker, so that a phone on a weak connection gets it in a few kilobytes.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { PublicSitePage } from './public-site-page';

const code = decodeURIComponent(window.location.pathname.split('/')[2] ?? '');

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <PublicSitePage code={code} />
  </StrictMode>,
);
