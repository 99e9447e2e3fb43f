// What the field journeys (offline entry, poisoned outbox entry, requests) share: the demo
// referent and logging in (from e2e-login.ts), the referent's sites as the site sheet knows
// them, and the wait until the app works offline.
import { expect, type APIRequestContext, type Page } from '@playwright/test';

export { REFERENT, logIn } from './e2e-login';

export const QUEUED = 'Intervention enregistrée sur le téléphone, elle sera envoyée dès le retour du réseau';

export interface Cell {
  id: number;
  numero: number;
  typeBac: number;
  libelleTypeBac: string;
}

export interface SiteInfos {
  id: number;
  code: string;
  nom: string | null;
  siteComposteurs: Cell[];
}

/** One of the logged-in user's active sites (by position), with its cells, asked while online. */
export async function siteOfUser(page: Page, index: number): Promise<SiteInfos> {
  const sites = (await (await page.request.get('/api/admin/site/get/all/actif')).json()) as { id: number }[];
  expect(sites.length).toBeGreaterThan(index);
  const res = await page.request.get(`/api/admin/site/get/infos/pour/intervention/${sites[index].id}`);
  expect(res.ok()).toBe(true);
  return (await res.json()) as SiteInfos;
}

/**
 * Waits until the page is controlled by the service worker and the app says the user's sites
 * are on the phone (it writes that once every site's cells are stored).
 * A page whose navigation was under way while the worker activated can stay outside its control
 * (the worker's claim does not reach it) until the next navigation: when the worker has been
 * active for 3 s and the page is still free, the page is reloaded, as the next screen a user
 * opens would be.
 */
export async function waitUntilReadyOffline(page: Page) {
  let freeSince: number | null = null;
  const workerState = async () => {
    const state = await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.getRegistration();
      return `${registration?.installing?.state ?? '-'}/${registration?.waiting?.state ?? '-'}/${registration?.active?.state ?? '-'}/${navigator.serviceWorker.controller ? 'controlled' : 'free'}`;
    });
    if (!state.endsWith('/activated/free')) freeSince = null;
    else if (freeSince === null) freeSince = Date.now();
    else if (Date.now() - freeSince > 3_000) {
      freeSince = null;
      await page.reload();
    }
    return state;
  };
  await expect.poll(workerState, { timeout: 60_000 }).toMatch(/\/activated\/controlled$/);
  await expect(page.getByText(/^Vos sites sont disponibles hors ligne/)).toBeVisible({ timeout: 30_000 });
}

/**
 * Cancels the pending requests of one cell (as a provider or ROLE_ADMIN), so that the next entry
 * matching a rule raises its own request: while one is pending for a cell and action, later
 * entries only add to it.
 */
export async function clearPendingRequests(api: APIRequestContext, siteId: number, cellId: number) {
  const res = await api.get(`/api/admin/demande/intervention/get/list?filter[site]=${siteId}&rowsPerPage=100`);
  expect(res.ok(), await res.text()).toBe(true);
  const pending = ((await res.json()) as { demandesInterventions: { id: number; idBac: number }[] }).demandesInterventions;
  const ids = pending.filter((d) => d.idBac === cellId).map((d) => d.id);
  if (ids.length === 0) return;
  const cancel = await api.put('/api/admin/demande/intervention/delete', { data: { demandesInterventions: ids } });
  expect(cancel.ok(), await cancel.text()).toBe(true);
}

/** 'Cellule n°1 - Apport': the label the site sheet gives cell `numero` of `site`. */
export function phoneCellLabel(site: SiteInfos, numero: number): string {
  const cell = site.siteComposteurs.find((c) => c.numero === numero);
  expect(cell, `cell n°${numero} of ${site.code}`).toBeDefined();
  return `Cellule n°${cell!.numero} - ${cell!.libelleTypeBac}`;
}

/** How wide the page is: more than the viewport means it scrolls sideways. */
export const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

/**
 * Elements under `selector` whose content does not fit: wider than their box (scrollWidth >
 * clientWidth), text squeezed to nothing or clipped at the bottom (a line clamp), or past the
 * right edge of the screen. Visually hidden text (a clipped 1 px box, kept for screen readers)
 * and what is not displayed are left out. With `cutOnly`, only boxes that hide what overflows
 * sideways (overflow hidden or clip, or an ellipsis) count: content a scroll area can reach
 * sideways (a wide table) is not cut off.
 */
export function cutOffElements(page: Page, selector: string, options: { cutOnly?: boolean } = {}): Promise<string[]> {
  return page.evaluate(
    ({ selector, cutOnly }) => {
      const out: string[] = [];
      const describe = (el: Element) => {
        const text = (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
        return `<${el.tagName.toLowerCase()} class="${(el.getAttribute('class') ?? '').slice(0, 60)}">${text}`;
      };
      const visuallyHidden = (el: Element) => {
        for (let p: Element | null = el; p; p = p.parentElement) {
          const s = getComputedStyle(p);
          if (s.position === 'absolute' && (s.clip !== 'auto' || s.clipPath !== 'none') && p.getBoundingClientRect().width <= 1) return true;
        }
        return false;
      };
      for (const root of document.querySelectorAll(selector)) {
        for (const el of [root, ...root.querySelectorAll('*')]) {
          if (!(el instanceof HTMLElement)) continue;
          const style = getComputedStyle(el);
          if (style.display === 'none' || style.visibility === 'hidden' || style.display === 'inline' || visuallyHidden(el)) continue;
          // A native select's options live in the phone's own picker, not in the page.
          if (el.parentElement?.closest('select')) continue;
          const box = el.getBoundingClientRect();
          // Text drawn on the screen (visually hidden words do not count).
          let text = false;
          const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n && !text; n = walker.nextNode()) text = (n.textContent ?? '').trim() !== '' && !visuallyHidden(n.parentElement!);
          // Inside a box that scrolls sideways: reachable, not cut off.
          let inScroller = false;
          for (let p = el.parentElement; p && p !== root.parentElement; p = p.parentElement) {
            const o = getComputedStyle(p).overflowX;
            if (o === 'auto' || o === 'scroll') inScroller = true;
          }
          if (inScroller) continue;
          const clipsX = style.overflowX === 'hidden' || style.overflowX === 'clip' || style.textOverflow === 'ellipsis';
          const clipsY = style.overflowY === 'hidden' || style.overflowY === 'clip' || style.webkitLineClamp !== 'none';
          if (text && box.width <= 1) out.push(`squeezed to nothing: ${describe(el)}`);
          else if ((!cutOnly || clipsX) && el.scrollWidth > el.clientWidth + 1) out.push(`wider than its box: ${describe(el)} (${el.scrollWidth} > ${el.clientWidth})`);
          if (text && clipsY && el.clientHeight > 0 && el.scrollHeight > el.clientHeight + 1) out.push(`clipped at the bottom: ${describe(el)} (${el.scrollHeight} > ${el.clientHeight})`);
          if (box.width > 1 && box.right > window.innerWidth + 0.5) out.push(`past the right edge: ${describe(el)} (${Math.round(box.right)} px)`);
        }
      }
      return out;
    },
    { selector, cutOnly: options.cutOnly ?? false },
  );
}

/** The owner of each entry waiting in the phone's outbox (IndexedDB), oldest first. */
export function queuedOwners(page: Page): Promise<number[]> {
  return page.evaluate(
    () =>
      new Promise<number[]>((resolve, reject) => {
        const open = indexedDB.open('compost-offline');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const all = open.result.transaction('outbox').objectStore('outbox').getAll();
          all.onerror = () => reject(all.error);
          all.onsuccess = () => {
            open.result.close();
            const rows = all.result as { ownerId: number; createdAt: number }[];
            resolve(rows.sort((a, b) => a.createdAt - b.createdAt).map((r) => r.ownerId));
          };
        };
      }),
  );
}

/** The query cache the phone keeps (offline/query-persist.ts), as saved: JSON text, or '' when none. */
export function keptCache(page: Page): Promise<string> {
  return page.evaluate(
    () =>
      new Promise<string>((resolve) => {
        const open = indexedDB.open('compost-query-cache');
        open.onerror = () => resolve('');
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains('entries')) return resolve('');
          const get = db.transaction('entries').objectStore('entries').get('field-screens');
          get.onsuccess = () => resolve(typeof get.result === 'string' ? get.result : '');
          get.onerror = () => resolve('');
        };
      }),
  );
}

/** The data of the kept query with this key, as JSON text ('' when it is not kept). */
export async function keptQuery(page: Page, key: unknown[]): Promise<string> {
  const text = await keptCache(page);
  if (!text) return '';
  const kept = JSON.parse(text) as { clientState: { queries: { queryKey: unknown[]; state: { data?: unknown } }[] } };
  const query = kept.clientState.queries.find((q) => JSON.stringify(q.queryKey) === JSON.stringify(key));
  return query ? JSON.stringify(query.state.data) : '';
}
