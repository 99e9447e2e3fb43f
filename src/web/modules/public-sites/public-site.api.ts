// Calls of a site's public page: plain fetch, nothing else. The page is opened from a label on
// a composter, often on a weak connection, by people without an account: it loads neither the
// app's HTTP client nor its query cache, and a refusal never sends anyone to the login page.
import type { FieldError } from '../../../shared/errors';
import type { FoyerInput } from '../../../shared/schemas/households';
import type { PublicSite, SignalementInput } from '../../../shared/schemas/public-sites';

/** When a request never reached the server (offline, DNS, timeout). */
export const NETWORK_MESSAGE = 'Le serveur est injoignable. Vérifiez votre connexion puis réessayez.';
const GENERIC_MESSAGE = 'Une erreur est survenue. Réessayez dans un instant.';

export type LoadResult = { kind: 'ok'; site: PublicSite } | { kind: 'not-found' } | { kind: 'error'; message: string };

export type SendResult = { kind: 'ok'; message: string } | { kind: 'invalid'; errors: FieldError[]; message: string } | { kind: 'error'; message: string };

async function readJson(res: Response): Promise<Record<string, unknown>> {
  try {
    return (await res.json()) as Record<string, unknown>;
  } catch {
    return {};
  }
}

export async function loadPublicSite(code: string, signal?: AbortSignal): Promise<LoadResult> {
  let res: Response;
  try {
    res = await fetch(`/api/public/site/${encodeURIComponent(code)}`, { headers: { accept: 'application/json' }, signal });
  } catch {
    return { kind: 'error', message: NETWORK_MESSAGE };
  }
  if (res.status === 404 || res.status === 400) return { kind: 'not-found' };
  if (!res.ok) return { kind: 'error', message: GENERIC_MESSAGE };
  return { kind: 'ok', site: (await res.json()) as PublicSite };
}

/** A form of the page sent: its answer read the same way for every form. */
async function sendForm(path: string, payload: unknown): Promise<SendResult> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });
  } catch {
    return { kind: 'error', message: NETWORK_MESSAGE };
  }
  const body = await readJson(res);
  const message = typeof body.message === 'string' ? body.message : GENERIC_MESSAGE;
  if (res.ok) return { kind: 'ok', message };
  if (res.status === 400 && Array.isArray(body.errors)) return { kind: 'invalid', errors: body.errors as FieldError[], message: 'Vérifiez les champs signalés.' };
  // 404 (the site left the programme meanwhile), 429 (too many sent): the server's own words.
  if (res.status < 500) return { kind: 'error', message };
  return { kind: 'error', message: GENERIC_MESSAGE };
}

export function sendReport(code: string, payload: SignalementInput): Promise<SendResult> {
  return sendForm(`/api/public/site/${encodeURIComponent(code)}/signalement`, payload);
}

/** 'Je composte ici'; `siteWeb` is the field people never see (a robot fills it). */
export function sendHousehold(code: string, payload: FoyerInput & { siteWeb?: string }): Promise<SendResult> {
  return sendForm(`/api/public/site/${encodeURIComponent(code)}/foyer`, payload);
}

/** The public calendar of the site's openings (an iCalendar feed a phone's agenda can add). */
export function permanencesFeedUrl(code: string): string {
  return `/api/public/site/${encodeURIComponent(code)}/permanences.ics`;
}

/** The page's data the server wrote into the page itself (web.ts), when it is this site's. */
export function inlineSite(code: string): PublicSite | null {
  const text = document.getElementById('public-site-data')?.textContent;
  if (!text) return null;
  try {
    const site = JSON.parse(text) as PublicSite | null;
    return site && site.code.toUpperCase() === code.toUpperCase() ? site : null;
  } catch {
    return null;
  }
}
