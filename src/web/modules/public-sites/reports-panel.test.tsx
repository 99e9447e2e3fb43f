import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SignalementRow } from '../../../shared/schemas/public-sites';
import { parisDayValue } from '../../../shared/dates';
import { loggedAs, mockApi, renderApp, reply, type ApiCall } from '../../../../tests/helpers/web-app';
import { behaveLikeABrowserForTables } from '../../../../tests/helpers/web-screens';
import { publicSitesRoutes } from './public-sites.routes';
import { parseFrenchDay } from './reports-panel';

behaveLikeABrowserForTables();
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const DAY_MS = 24 * 3600 * 1000;
/** The first screen compiles its lazy chunk: on a busy machine that takes more than the default second. */
const FIRST = { timeout: 15_000 };

function row(over: Partial<SignalementRow> = {}): SignalementRow {
  return {
    id: 31,
    date: '2026-03-12T07:30:00.000Z',
    idSite: 5,
    site: 'Jardin des Capucins',
    code: 'QUA012',
    adresse: '3 Rue de Siam, 29200 Brest',
    categorie: 'bac_plein',
    categorieLibelle: 'Bac plein',
    texte: 'Le bac déborde depuis hier.',
    reponseDemandee: true,
    statut: 'nouveau',
    traiteLe: null,
    traitePar: null,
    motif: null,
    idDemande: null,
    actionProgrammee: null,
    dateEcheance: null,
    occurrences: 1,
    fusionneDans: null,
    ...over,
  };
}

const ACTIONS = [
  { id: 3, libelle: 'Transfert', valeur: true, valueKind: 'transfer', typeBac: [1], aConstantes: false, constantes: [] },
  { id: 14, libelle: 'Réparation effectuée', valeur: true, valueKind: 'text', typeBac: [1, 2, 3], aConstantes: false, constantes: [] },
  { id: 17, libelle: 'Tamisage', valeur: true, valueKind: 'litres', typeBac: [3], aConstantes: false, constantes: [] },
];
const CELLS = [
  { id: 41, numero: 1, typeBac: 1, libelleTypeBac: 'Apport', volume: 400, actif: true },
  { id: 43, numero: 3, typeBac: 3, libelleTypeBac: 'Maturation', volume: 800, actif: true },
];

function board(rows: SignalementRow[], handlers: Record<string, (call: ApiCall) => ReturnType<typeof reply>> = {}) {
  return mockApi({
    'GET /api/logged': loggedAs(['ROLE_ADMIN']),
    'GET /api/typeAction/get/all': reply(200, ACTIONS),
    'GET /api/admin/signalement/get/list': (call) =>
      call.path.includes('filter%5Bstatut%5D=traite')
        ? reply(200, { count: 1, signalements: [row({ id: 30, statut: 'classe', traiteLe: '2026-03-02T10:00:00.000Z', traitePar: 'DURAND Alice', motif: 'Doublon' })] })
        : reply(200, { count: rows.length, signalements: rows }),
    'GET /api/admin/site/get/infos/pour/intervention/5': reply(200, { id: 5, code: 'QUA012', nom: 'Jardin des Capucins', numero: '3', adresse: 'Rue de Siam', cp: '29200', ville: 'Brest', typeSite: 'Quartier', siteComposteurs: CELLS }),
    ...handlers,
  });
}

describe('reports panel', () => {
  it('reads French days typed in the due date field', () => {
    expect(parseFrenchDay('5/3/2026')).toBe('2026-03-05');
    expect(parseFrenchDay('31/02/2026')).toBeNull();
    expect(parseFrenchDay('2026-03-05')).toBeNull();
  });

  it('lists new reports, then the handled ones with who handled them and why', async () => {
    board([row(), row({ id: 32, categorie: 'odeur', categorieLibelle: 'Odeur', reponseDemandee: false, texte: 'Odeur forte.' })]);
    renderApp('/admin/signalements', { publicRoutes: publicSitesRoutes });
    const cards = await screen.findAllByRole('article', {}, FIRST);
    expect(cards).toHaveLength(2);
    expect(within(cards[0]).getByText('Bac plein')).toBeInTheDocument();
    expect(within(cards[0]).getByText('Réponse attendue par mail')).toBeInTheDocument();
    expect(within(cards[0]).getByRole('heading', { name: 'Jardin des Capucins (QUA012)' })).toBeInTheDocument();
    expect(within(cards[1]).queryByText('Réponse attendue par mail')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('radio', { name: 'Traités' }));
    expect(await screen.findByText('Classé le 02/03/2026 par DURAND Alice. Motif : Doublon')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Classer' })).not.toBeInTheDocument();
  });

  it('turns a report into a request: suggested action, the cells it fits, a due date, and the server’s field errors', async () => {
    let answer = reply(400, { status: 'error', errors: [{ key: 'dateEcheance', error: 'L’échéance doit être comprise entre aujourd’hui et dans un an' }] });
    const api = board([row()], { 'PUT /api/admin/signalement/transformer/31': () => answer });
    const user = userEvent.setup();
    renderApp('/admin/signalements', { publicRoutes: publicSitesRoutes });
    await user.click(await screen.findByRole('button', { name: 'Transformer en demande' }, FIRST));
    const dialog = await screen.findByRole('dialog', { name: 'Transformer en demande' });
    // 'Bac plein' suggests a transfer; only the input bin can be emptied that way, so it is chosen.
    expect(within(dialog).getByRole('combobox', { name: 'Action à programmer' })).toHaveValue('Transfert');
    expect(await within(dialog).findByRole('combobox', { name: 'Cellule' })).toHaveValue('Cellule n°1 - Apport');
    await user.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(dialog).findByText('L’échéance doit être comprise entre aujourd’hui et dans un an')).toBeInTheDocument();
    const sent = api.callsTo('PUT', '/api/admin/signalement/transformer/31')[0].body as Record<string, unknown>;
    expect(sent).toEqual({ actionProgrammee: 3, composteur: 41, dateEcheance: parisDayValue(new Date(Date.now() + 7 * DAY_MS)) });

    answer = reply(200, { status: 'success', message: 'Signalement transformé en demande d’intervention', idDemande: 77 });
    await user.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Signalement transformé en demande d’intervention')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/signalement/transformer/31')).toHaveLength(2);
  });

  it('asks for a reason before filing a report', async () => {
    const api = board([row()], { 'PUT /api/admin/signalement/classer/31': () => reply(200, { status: 'success', message: 'Signalement classé', idDemande: null }) });
    const user = userEvent.setup();
    renderApp('/admin/signalements', { publicRoutes: publicSitesRoutes });
    await user.click(await screen.findByRole('button', { name: 'Classer' }, FIRST));
    const dialog = await screen.findByRole('dialog', { name: 'Classer le signalement' });
    await user.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(within(dialog).getByText('Entre 3 et 500 caractères')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/signalement/classer/31')).toHaveLength(0);
    await user.type(within(dialog).getByRole('textbox', { name: /Motif/ }), 'Le bac a été vidé ce matin.');
    await user.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Signalement classé')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/signalement/classer/31')[0].body).toEqual({ motif: 'Le bac a été vidé ce matin.' });
  });

  it('closes the chosen reports in one action, chosen from the keyboard, and says how many changed', async () => {
    const rows = [row(), row({ id: 32, texte: 'Odeur forte.' }), row({ id: 33, texte: 'Couvercle cassé.' })];
    let answer = reply(409, { status: 'error', message: 'Ce signalement a déjà été traité.' });
    const api = board(rows, { 'PUT /api/admin/signalement/classer': () => answer });
    const user = userEvent.setup();
    renderApp('/admin/signalements', { publicRoutes: publicSitesRoutes });
    const close = await screen.findByRole('button', { name: 'Clôturer' }, FIRST);
    expect(close).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Fusionner' })).toBeDisabled();
    // Space on a focused checkbox chooses the report.
    for (const id of [31, 33]) {
      screen.getByRole('checkbox', { name: new RegExp(`^Choisir le signalement n° ${id} du`) }).focus();
      await user.keyboard(' ');
    }
    expect(screen.getByText('2 choisis sur 3 signalements')).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: 'Choisir tous les signalements de la page' })).toBePartiallyChecked();
    await user.click(close);
    const dialog = await screen.findByRole('dialog', { name: 'Clôturer 2 signalements' });
    await user.type(within(dialog).getByRole('textbox', { name: /Motif/ }), 'Réglé sur place.');
    await user.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    // Refused as a whole: the dialog says why and nothing is cleared.
    expect(await within(dialog).findByText('Ce signalement a déjà été traité.')).toBeInTheDocument();
    answer = reply(200, { status: 'success', message: '2 signalements clôturés', count: 2 });
    await user.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('2 signalements clôturés')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/signalement/classer').map((c) => c.body)).toEqual([
      { ids: [31, 33], motif: 'Réglé sur place.' },
      { ids: [31, 33], motif: 'Réglé sur place.' },
    ]);
    expect(await screen.findByText('0 choisi sur 3 signalements')).toBeInTheDocument();
  });

  it('turns the chosen reports of one site into one request, and refuses a choice across sites', async () => {
    const rows = [row(), row({ id: 32, texte: 'Odeur forte.' }), row({ id: 33, idSite: 6, site: 'Square Wilson', texte: 'Couvercle cassé.' })];
    const api = board(rows, {
      'PUT /api/admin/signalement/transformer': () => reply(200, { status: 'success', message: '2 signalements transformés en une demande d’intervention', count: 2, idDemande: 78 }),
    });
    const user = userEvent.setup();
    renderApp('/admin/signalements', { publicRoutes: publicSitesRoutes });
    const turn = await screen.findByRole('button', { name: 'Transformer en une demande' }, FIRST);
    expect(turn).toBeDisabled();
    await user.click(screen.getByRole('checkbox', { name: 'Choisir tous les signalements de la page' }));
    // Two sites in the choice: one request cannot serve both.
    expect(turn).toBeDisabled();
    expect(turn).toHaveAttribute('title', 'Choisissez des signalements d’un même site');
    await user.click(screen.getByRole('checkbox', { name: /^Choisir le signalement n° 33 du/ }));
    expect(turn).toBeEnabled();
    await user.click(turn);
    const dialog = await screen.findByRole('dialog', { name: 'Transformer 2 signalements en une demande' });
    expect(await within(dialog).findByRole('combobox', { name: 'Cellule' })).toHaveValue('Cellule n°1 - Apport');
    await user.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('2 signalements transformés en une demande d’intervention')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/signalement/transformer')[0].body).toEqual({
      ids: [31, 32],
      actionProgrammee: 3,
      composteur: 41,
      dateEcheance: parisDayValue(new Date(Date.now() + 7 * DAY_MS)),
    });
    expect(await screen.findByText('0 choisi sur 3 signalements')).toBeInTheDocument();
  });

  it('merges the chosen reports into the one kept, the oldest unless another is picked', async () => {
    const rows = [
      row({ id: 40, date: '2026-03-12T09:00:00.000Z', occurrences: 3 }),
      row({ id: 41, date: '2026-03-12T07:00:00.000Z', texte: 'Plein depuis hier.' }),
      row({ id: 42, date: '2026-03-12T08:00:00.000Z', texte: 'Plus de place.' }),
    ];
    const api = board(rows, { 'PUT /api/admin/signalement/fusionner': () => reply(200, { status: 'success', message: '2 signalements fusionnés dans le signalement n° 40', count: 2 }) });
    const user = userEvent.setup();
    renderApp('/admin/signalements', { publicRoutes: publicSitesRoutes });
    expect(await screen.findByText('Signalé 3 fois', {}, FIRST)).toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: 'Choisir tous les signalements de la page' }));
    expect(screen.getByText('3 choisis sur 3 signalements')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Fusionner' }));
    const dialog = await screen.findByRole('dialog', { name: 'Fusionner 3 signalements' });
    expect(within(dialog).getByRole('radio', { name: /^n° 41 du/ })).toBeChecked();
    await user.click(within(dialog).getByRole('radio', { name: /^n° 40 du/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('2 signalements fusionnés dans le signalement n° 40')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/signalement/fusionner')[0].body).toEqual({ idConserve: 40, ids: [41, 42] });
  });

  it('says which report a merged one went into', async () => {
    board([row()], {
      'GET /api/admin/signalement/get/list': (call) =>
        reply(200, {
          count: 1,
          signalements: call.path.includes('traite') ? [row({ id: 30, statut: 'classe', traiteLe: '2026-03-02T10:00:00.000Z', traitePar: 'DURAND Alice', fusionneDans: 29 })] : [],
        }),
    });
    renderApp('/admin/signalements', { publicRoutes: publicSitesRoutes });
    await userEvent.click(await screen.findByRole('radio', { name: 'Traités' }, FIRST));
    expect(await screen.findByText('Fusionné le 02/03/2026 par DURAND Alice dans le signalement n° 29')).toBeInTheDocument();
    expect(screen.queryByText('Réponse envoyée par mail')).not.toBeInTheDocument();
  });

  it('tells a provider the page is not theirs, without calling the API', async () => {
    const api = board([row()], { 'GET /api/logged': () => loggedAs(['ROLE_PRESTATAIRE']) });
    renderApp('/admin/signalements', { publicRoutes: publicSitesRoutes });
    expect(await screen.findByText('Cette page est réservée aux administrateurs et aux référents de site.', {}, FIRST)).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/admin/signalement/get/list')).toHaveLength(0);
  });
});
