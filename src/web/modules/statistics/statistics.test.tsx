import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { loggedAs, mockApi, renderApp, reply, type ApiCall } from '../../../../tests/helpers/web-app';
import { downloader } from '../../lib/download';
import { statisticsRoutes } from './statistics.routes';
import { lastBegunMonth } from './people-charts';

const MOIS = ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'];
const months = (nb: number[], quantite: number[] = []) => MOIS.map((mois_nom, i) => ({ mois_nom, nb: nb[i] ?? 0, quantite: quantite[i] ?? 0 }));

/** Households at each month's end of 2025 and the kilos of its tallies, as the server would answer them. */
const FOYERS = MOIS.map((mois_nom, i) => ({ mois_nom, nb: i < 10 ? 2 : 3, personnes: i < 10 ? 5 : 11 }));
const KILOS = MOIS.map((mois_nom, i) => ({ mois_nom, kg: i === 2 ? 12.5 : i === 3 ? 14.5 : i === 9 ? 20.25 : 0, kgEstimes: i === 3 ? 8 : 0, permanences: i === 3 ? 2 : [2, 9].includes(i) ? 1 : 0 }));

const SITES = [
  { id: 12, code: 'QUA012', nom: 'Jardin des Capucins', adresse: 'Rue de Siam', numero: '4', ville: 'Brest', cp: '29200' },
  { id: 13, code: 'PIM003', nom: null, adresse: 'Rue de Brest', numero: null, ville: 'Guipavas', cp: '29490' },
];

/** Query string of a call as an object (the mock ignores it when matching). */
const query = (c: ApiCall) => Object.fromEntries(new URL(c.path, 'http://x').searchParams);

function mockStats(extra: Parameters<typeof mockApi>[0] = {}) {
  const series = (call: ApiCall) => {
    const q = query(call);
    if (q.annee === '2024') return reply(200, months([]));
    return reply(200, q.site ? months([1, 0, 2]) : months([3, 1, 4, 1, 5], [100, 0, 250, 0, 50]));
  };
  const handlers: Parameters<typeof mockApi>[0] = {
    'GET /api/logged': loggedAs(['ROLE_ADMIN_COMPOSTEUR']),
    'GET /api/admin/site/get/all/actif': reply(200, SITES),
    'GET /api/admin/annee/get/all': reply(200, [{ annee: 2025 }, { annee: 2024 }]),
    'GET /api/admin/stats/prestataire/get/all': reply(200, [{ id: 5, libelle: 'Compost Services (Compost SERVICES)' }]),
    'GET /api/admin/intervention/get/all/by/mois': series,
    'GET /api/admin/foyers/get/by/mois': (call) => reply(200, query(call).annee === '2024' ? FOYERS.map((r) => ({ ...r, nb: 0, personnes: 0 })) : FOYERS),
    'GET /api/admin/kgDetournes/get/by/mois': (call) => reply(200, query(call).annee === '2024' ? KILOS.map((r) => ({ ...r, kg: 0, kgEstimes: 0, permanences: 0 })) : KILOS),
    'GET /api/admin/temperature/get/by/mois': reply(200, [
      { date: '2025-03-04T09:00:00.000Z', temp: 42.5, numeroBac: 1 },
      { date: '2025-03-04T09:00:00.000Z', temp: 38, numeroBac: 3 },
    ]),
    ...extra,
  };
  for (const s of ['apportBroyat', 'distribution', 'transfert', 'retournement', 'reparation', 'arrosage', 'viderBac', 'tamisage']) {
    handlers[`GET /api/admin/${s}/get/by/mois`] ??= series;
  }
  return mockApi(handlers);
}

/** A chart card once its figures have arrived (the skeleton card has the same name, busy). */
async function loadedCard(name: string | RegExp) {
  return waitFor(
    () => {
      const card = screen.getByRole('region', { name });
      expect(card).not.toHaveAttribute('aria-busy');
      return card;
    },
    { timeout: 10_000 },
  );
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('statistics dashboard', () => {
  it('selects the newest year on first load and loads every chart of the whole network', async () => {
    const api = mockStats();
    renderApp('/admin/stats', { loggedRoutes: statisticsRoutes });
    const interventions = await loadedCard('Interventions · Tout le réseau');
    // The year's total beside the title: 3 + 1 + 4 + 1 + 5.
    expect(within(interventions).getByLabelText("Total de l'année : 14")).toBeInTheDocument();
    const apport = await loadedCard('Apports de broyat · Tout le réseau');
    expect(within(apport).getByLabelText("Total de l'année : 14 · 400 L")).toBeInTheDocument();
    // The interventions series feeds the empty state and its own chart: asked once.
    expect(api.callsTo('GET', '/api/admin/intervention/get/all/by/mois')).toHaveLength(1);
    for (const path of ['/api/admin/intervention/get/all/by/mois', '/api/admin/apportBroyat/get/by/mois', '/api/admin/tamisage/get/by/mois', '/api/admin/reparation/get/by/mois']) {
      await waitFor(() => expect(api.callsTo('GET', path).map(query)).toContainEqual({ annee: '2025' }));
    }
    // No site: no temperature chart, and no call for it.
    expect(screen.queryByRole('region', { name: /Températures/ })).not.toBeInTheDocument();
    expect(api.callsTo('GET', '/api/admin/temperature/get/by/mois')).toHaveLength(0);
    expect(screen.getByRole('combobox', { name: 'Année' })).toHaveValue('2025');
  }, 30_000);

  it('offers an export on seven charts with the tooltip of the spec, none on turning and repairs', async () => {
    mockStats();
    renderApp('/admin/stats', { loggedRoutes: statisticsRoutes });
    await loadedCard('Tamisage · Tout le réseau');
    const labels = screen.getAllByRole('button', { name: /^Télécharger/ }).map((b) => b.getAttribute('aria-label'));
    expect(labels).toEqual([
      "Télécharger les interventions par site pour l'année",
      "Télécharger les apports de broyat par site pour l'année",
      "Télécharger les distributions de compost par site pour l'année",
      "Télécharger les transferts par site pour l'année",
      "Télécharger les arrosages par site pour l'année",
      "Télécharger les vidages de cellule par site pour l'année",
      "Télécharger les tamisages par site pour l'année",
    ]);
    for (const name of ['Retournements · Tout le réseau', 'Réparations · Tout le réseau']) {
      expect(within(screen.getByRole('region', { name })).queryByRole('button', { name: /Télécharger/ })).not.toBeInTheDocument();
    }
  }, 30_000);

  it("hands the yearly export of the chosen provider to the browser's downloads under the name of the spec, and says so", async () => {
    mockStats();
    const start = vi.spyOn(downloader, 'start').mockImplementation(() => {});
    try {
      renderApp('/admin/stats?annee=2025&prestataire=5', { loggedRoutes: statisticsRoutes });
      await loadedCard('Arrosages · Tout le réseau');
      await userEvent.click(screen.getByRole('button', { name: "Télécharger les arrosages par site pour l'année" }));
      expect(start).toHaveBeenCalledWith('/api/admin/intervention/export/arrosage/by/site?annee=2025&prestataire=5', 'export_arrosage_par_site_2025.csv');
      expect(await screen.findByText('Téléchargement de export_arrosage_par_site_2025.csv lancé')).toBeInTheDocument();
    } finally {
      start.mockRestore();
    }
  }, 30_000);

  it('reloads every chart for a chosen site and provider, and shows the temperatures of the site', async () => {
    const api = mockStats();
    renderApp('/admin/stats?annee=2025&site=12&prestataire=5', { loggedRoutes: statisticsRoutes });
    const place = '4 Rue de Siam';
    const temps = await screen.findByRole('region', { name: `Températures (°C) · QUA012 - ${place} (Jardin des Capucins)` }, { timeout: 10_000 });
    expect(temps).toBeInTheDocument();
    await waitFor(() =>
      expect(within(screen.getByRole('region', { name: /^Températures/ })).getByRole('img')).toHaveAccessibleName(/2 relevé\(s\) sur 2 cellule\(s\), de 38 à 42,5\s°C/),
    );
    await waitFor(() => expect(api.callsTo('GET', '/api/admin/arrosage/get/by/mois').map(query)).toContainEqual({ annee: '2025', site: '12', prestataire: '5' }));
    expect(api.callsTo('GET', '/api/admin/temperature/get/by/mois').map(query)).toContainEqual({ annee: '2025', site: '12', prestataire: '5' });
    expect(screen.getByRole('combobox', { name: 'Prestataire' })).toHaveValue('Compost Services (Compost SERVICES)');
    expect(screen.getByRole('combobox', { name: 'Site' })).toHaveValue(`QUA012 - ${place} (Jardin des Capucins)`);
  }, 30_000);

  it('switches year from the select and shows the empty state of a year without interventions', async () => {
    const api = mockStats();
    const { router } = renderApp('/admin/stats', { loggedRoutes: statisticsRoutes });
    await loadedCard('Interventions · Tout le réseau');
    await userEvent.click(screen.getByRole('combobox', { name: 'Année' }));
    await userEvent.click(await screen.findByRole('option', { name: '2024' }));
    expect(await screen.findByText('Aucune intervention en 2024')).toBeInTheDocument();
    // The filters live in the URL, so the back button returns to the previous year.
    expect(router.state.location.search).toBe('?annee=2024');
    await router.navigate(-1);
    expect(router.state.location.search).toBe('');
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Année' })).toHaveValue('2025'), { timeout: 10_000 });
    expect(screen.queryByText('Aucune intervention en 2024')).not.toBeInTheDocument();
    expect(api.callsTo('GET', '/api/admin/viderBac/get/by/mois').map(query)).toContainEqual({ annee: '2024' });
  }, 30_000);

  it('shows a chart as a table of the twelve months on demand', async () => {
    mockStats();
    renderApp('/admin/stats?annee=2025', { loggedRoutes: statisticsRoutes });
    const card = await loadedCard('Apports de broyat · Tout le réseau');
    await userEvent.click(within(card).getByRole('switch', { name: 'Afficher le tableau' }));
    const table = within(card).getByRole('table');
    const rows = within(table).getAllByRole('row').map((r) => [...r.querySelectorAll('th,td')].map((c) => c.textContent));
    expect(rows[0]).toEqual(['Mois', 'Nombre', 'Litres']);
    expect(rows.slice(1).map((r) => r[0])).toEqual(MOIS.map((m) => m[0].toUpperCase() + m.slice(1)));
    expect(rows[3]).toEqual(['Mars', '4', '250']);
  }, 30_000);

  it("names the screen with one h1 and says 'Aucune donnée pour cette période' on each chart of a year without figures", async () => {
    mockStats();
    renderApp('/admin/stats?annee=2024', { loggedRoutes: statisticsRoutes });
    expect(await screen.findByRole('heading', { level: 1, name: 'Statistiques' })).toBeInTheDocument();
    expect(screen.getAllByRole('heading', { level: 1 })).toHaveLength(1);
    await waitFor(() => expect(document.title).toMatch(/^Statistiques/));
    const card = await loadedCard('Arrosages · Tout le réseau');
    expect(within(card).getByText('Aucune donnée pour cette période')).toBeInTheDocument();
    // Nothing to show as a table either.
    expect(within(card).queryByRole('switch', { name: 'Afficher le tableau' })).not.toBeInTheDocument();
    expect(within(card).getByLabelText("Total de l'année : 0 · 0 L")).toBeInTheDocument();
  }, 30_000);

  it('writes the temperatures with a decimal comma', async () => {
    mockStats();
    renderApp('/admin/stats?annee=2025&site=12', { loggedRoutes: statisticsRoutes });
    const card = await loadedCard(/^Températures/);
    await userEvent.click(within(card).getByRole('switch', { name: 'Afficher le tableau' }));
    const cells = within(within(card).getByRole('table')).getAllByRole('cell').map((c) => c.textContent);
    expect(cells).toContain('42,5');
    expect(cells).not.toContain('42.5');
  }, 30_000);

  it('refuses the screen to a user without an admin role', async () => {
    mockStats({ 'GET /api/logged': loggedAs(['ROLE_USER']) });
    renderApp('/admin/stats', { loggedRoutes: statisticsRoutes });
    expect(await screen.findByText('Accès non authorisé.', {}, { timeout: 10_000 })).toBeInTheDocument();
  }, 30_000);

  it('shows the households taking part at the end of the year and the kilos diverted, estimates said so', async () => {
    mockStats();
    renderApp('/admin/stats?annee=2025', { loggedRoutes: statisticsRoutes });
    const households = await loadedCard('Foyers participants · Tout le réseau');
    // A count at a month's end, not a sum: 2025 is over, so December's.
    expect(within(households).getByLabelText('Fin décembre : 3 foyers · 11 personnes')).toBeInTheDocument();
    expect(within(households).getByRole('img')).toHaveAccessibleName('Foyers participants · Tout le réseau : 3 foyers participants et 11 personnes fin décembre.');
    const kilos = await loadedCard('Kilos détournés · Tout le réseau');
    // 12,5 + 14,5 + 20,25 kg, of which 8 estimated from buckets, over 4 tallies.
    expect(within(kilos).getByLabelText("Total de l'année : 47,25 kg dont 8 kg estimés")).toBeInTheDocument();
    expect(within(kilos).getByRole('img')).toHaveAccessibleName(/4 permanences avec bilan/);
    expect(within(kilos).getByText(/seaux apportés × kilos par seau/)).toBeInTheDocument();
    await userEvent.click(within(kilos).getByRole('switch', { name: 'Afficher le tableau' }));
    const rows = within(within(kilos).getByRole('table')).getAllByRole('row').map((r) => [...r.querySelectorAll('th,td')].map((c) => c.textContent));
    expect(rows[0]).toEqual(['Mois', 'Kilos', 'dont estimés', 'Permanences']);
    expect(rows[4]).toEqual(['Avril', '14,5', '8', '2']);
    expect(rows[10]).toEqual(['Octobre', '20,25', '0', '1']);
  }, 30_000);

  it('asks the households and kilos of the chosen site without the provider, which they do not depend on, and says so', async () => {
    const api = mockStats();
    renderApp('/admin/stats?annee=2025&site=12&prestataire=5', { loggedRoutes: statisticsRoutes });
    const kilos = await loadedCard(/^Kilos détournés · QUA012/);
    expect(within(kilos).getByText(/Tous prestataires confondus/)).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/admin/kgDetournes/get/by/mois').map(query)).toContainEqual({ annee: '2025', site: '12' });
    expect(api.callsTo('GET', '/api/admin/foyers/get/by/mois').map(query)).toContainEqual({ annee: '2025', site: '12' });
    expect(api.callsTo('GET', '/api/admin/foyers/get/by/mois').map(query).some((q) => 'prestataire' in q)).toBe(false);
  }, 30_000);

  it('says there is nothing to show for a year without households or tallies', async () => {
    mockStats();
    renderApp('/admin/stats?annee=2024', { loggedRoutes: statisticsRoutes });
    const kilos = await loadedCard('Kilos détournés · Tout le réseau');
    expect(within(kilos).getByText('Aucune donnée pour cette période')).toBeInTheDocument();
    expect(within(kilos).getByLabelText("Total de l'année : 0 kg")).toBeInTheDocument();
    const households = await loadedCard('Foyers participants · Tout le réseau');
    expect(within(households).getByText('Aucune donnée pour cette période')).toBeInTheDocument();
  }, 30_000);

  it('takes the households of the latest month begun in Paris: December of a past year, none of a year to come', () => {
    expect(lastBegunMonth(2025, new Date('2026-03-15T12:00:00Z'))).toBe(11);
    expect(lastBegunMonth(2026, new Date('2026-03-15T12:00:00Z'))).toBe(2);
    // 00:30 on 1 April in Paris.
    expect(lastBegunMonth(2026, new Date('2026-03-31T22:30:00Z'))).toBe(3);
    // 00:30 on 1 January 2026 in Paris.
    expect(lastBegunMonth(2026, new Date('2025-12-31T23:30:00Z'))).toBe(0);
    expect(lastBegunMonth(2027, new Date('2026-03-15T12:00:00Z'))).toBe(-1);
  });
});
