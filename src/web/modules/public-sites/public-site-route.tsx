// /s/{code} inside the app's shell: what a phone whose service worker serves the app gets (the
// server itself answers /s/{code} with the light page of public-site-main.tsx).
import { useParams } from 'react-router';
import { PublicSitePage } from './public-site-page';

export function PublicSiteRoute() {
  const code = useParams().code ?? '';
  return <PublicSitePage key={code} code={code} />;
}
