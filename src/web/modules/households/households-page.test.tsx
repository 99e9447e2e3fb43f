import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FOYER_MESSAGES, type FoyerList, type FoyerRow } from '../../../shared/schemas/households';
import { loggedAs, mockApi, renderApp, reply, type MockHandler } from '../../../../tests/helpers/web-app';
import { behaveLikeABrowserForTables } from '../../../../tests/helpers/web-screens';
import { householdsPublicRoutes, householdsRoutes } from './households.routes';

behaveLikeABrowserForTables();
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** The first screen compiles its lazy chunk: on a busy machine that takes more than the default second. */
const FIRST = { timeout: 15_000 };

function foyer(over: Partial<FoyerRow> = {}): FoyerRow {
  return {
    id: 11,
    idSite: 5,
    prenom: 'Léa',
    email: 'lea@exemple.fr',
    personnes: 3,
    bioseau: true,
    statut: 'en_attente',
    inscritLe: '2026-03-12T07:30:00.000Z',
    traiteLe: null,
    nouvelles: true,
    ...over,
  };
}

const SITE_INFOS = { id: 5, code: 'QUA012', nom: 'Jardin des Capucins', numero: '3', adresse: 'Rue de Siam', cp: '29200', ville: 'Brest', typeSite: 'Quartier', siteComposteurs: [] };

const ROWS = [
  foyer(),
  foyer({ id: 12, prenom: null, email: null, personnes: 1, bioseau: false, inscritLe: '2026-03-13T10:00:00.000Z' }),
  foyer({ id: 9, prenom: 'Marc', email: 'marc@exemple.fr', personnes: 4, statut: 'confirme', traiteLe: '2026-03-02T09:00:00.000Z', inscritLe: '2026-03-01T09:00:00.000Z' }),
  foyer({ id: 8, prenom: 'Inès', email: 'ines@exemple.fr', personnes: 2, statut: 'confirme', traiteLe: '2026-02-20T09:00:00.000Z', nouvelles: false }),
  foyer({ id: 7, prenom: 'Robot', email: null, personnes: 20, statut: 'refuse', traiteLe: '2026-02-10T09:00:00.000Z' }),
];

function listOf(rows: FoyerRow[]): FoyerList {
  const confirmed = rows.filter((r) => r.statut === 'confirme');
  return { count: rows.length, confirmes: confirmed.length, personnes: confirmed.reduce((n, r) => n + r.personnes, 0), foyers: rows };
}

function screenApi(handlers: Record<string, MockHandler> = {}, roles = ['ROLE_USER']) {
  return mockApi({
    'GET /api/logged': loggedAs(roles),
    'GET /api/admin/foyer/get/list/by/site/5': reply(200, listOf(ROWS)),
    'GET /api/admin/site/get/infos/pour/intervention/5': reply(200, SITE_INFOS),
    ...handlers,
  });
}

const open = () => renderApp('/admin/fiche/site/5/foyers', { loggedRoutes: householdsRoutes, publicRoutes: householdsPublicRoutes });

describe('the Foyers screen of a site', () => {
  it('counts the confirmed households and their people, lists the waiting ones first, then the others with their status', async () => {
    screenApi();
    open();
    expect(await screen.findByRole('heading', { level: 1, name: 'Foyers' }, FIRST)).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Foyers – Compost'));
    expect(await screen.findByText('Jardin des Capucins (QUA012)')).toBeInTheDocument();
    // Marc (4) and Inès (2): 2 confirmed households, 6 people.
    expect(screen.getByText('foyers confirmés').previousElementSibling).toHaveTextContent('2');
    expect(screen.getByText('personnes').previousElementSibling).toHaveTextContent('6');
    // Marc alone has an e-mail and still takes the news.
    expect(screen.getByText('1 foyer confirmé reçoit les nouvelles du site.')).toBeInTheDocument();

    const waiting = screen.getByRole('region', { name: 'À confirmer (2)' });
    const waitingCards = within(waiting).getAllByRole('article');
    expect(waitingCards.map((c) => c.getAttribute('aria-label'))).toEqual(['Foyer Léa', 'Foyer Foyer sans prénom']);
    expect(waitingCards[0]).toHaveTextContent('lea@exemple.fr');
    expect(waitingCards[0]).toHaveTextContent('3 personnes · bio-seau reçu');
    expect(waitingCards[0]).toHaveTextContent('Inscrit le 12/03/2026');
    expect(waitingCards[1]).toHaveTextContent('Pas d’adresse mail');
    expect(waitingCards[1]).toHaveTextContent('1 personne · pas de bio-seau');
    expect(within(waitingCards[0]).getByRole('button', { name: 'Confirmer Léa' })).toBeInTheDocument();

    const others = screen.getByRole('region', { name: 'Foyers traités (3)' });
    const otherCards = within(others).getAllByRole('article');
    expect(otherCards).toHaveLength(3);
    expect(within(otherCards[0]).getByText('Confirmé')).toBeInTheDocument();
    expect(otherCards[0]).toHaveTextContent('confirmé le 02/03/2026');
    expect(otherCards[1]).toHaveTextContent('ines@exemple.fr · ne reçoit plus les nouvelles');
    expect(within(otherCards[2]).getByText('Refusé')).toBeInTheDocument();
    expect(within(others).queryByRole('button', { name: /Confirmer|Refuser/ })).not.toBeInTheDocument();
  });

  it('confirms a household, then shows the list the server gives after it', async () => {
    let rows = ROWS;
    const api = screenApi({
      'GET /api/admin/foyer/get/list/by/site/5': () => reply(200, listOf(rows)),
      'PUT /api/admin/foyer/valider/11': () => {
        rows = ROWS.map((r) => (r.id === 11 ? { ...r, statut: 'confirme' as const, traiteLe: '2026-03-14T09:00:00.000Z' } : r));
        return reply(200, { status: 'success', message: FOYER_MESSAGES.confirmed });
      },
    });
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('button', { name: 'Confirmer Léa' }, FIRST));
    expect(await screen.findByText(FOYER_MESSAGES.confirmed)).toBeInTheDocument();
    expect(await screen.findByRole('region', { name: 'À confirmer (1)' })).toBeInTheDocument();
    // Léa's 3 people join Marc's 4 and Inès's 2.
    expect(screen.getByText('foyers confirmés').previousElementSibling).toHaveTextContent('3');
    expect(screen.getByText('personnes').previousElementSibling).toHaveTextContent('9');
    expect(api.callsTo('PUT', '/api/admin/foyer/valider/11')).toHaveLength(1);
  });

  it('asks before refusing, and says when someone else answered meanwhile', async () => {
    const api = screenApi({ 'PUT /api/admin/foyer/refuser/12': reply(409, { status: 'error', message: FOYER_MESSAGES.alreadyHandled }) });
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('button', { name: 'Refuser Foyer sans prénom' }, FIRST));
    const dialog = await screen.findByRole('dialog', { name: 'Refuser ce foyer ?' });
    await user.click(within(dialog).getByRole('button', { name: 'Annuler' }));
    expect(api.callsTo('PUT', '/api/admin/foyer/refuser/12')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Refuser Foyer sans prénom' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Refuser ce foyer ?' })).getByRole('button', { name: 'Refuser' }));
    expect(await screen.findByText(FOYER_MESSAGES.alreadyHandled)).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/foyer/refuser/12')).toHaveLength(1);
    // The list is asked again, so what the other person did shows.
    expect(api.callsTo('GET', '/api/admin/foyer/get/list/by/site/5').length).toBeGreaterThanOrEqual(2);
  });

  it('sends a news message, checks its fields first, and shows the once-a-day refusal', async () => {
    let answer = reply(409, { status: 'error', message: FOYER_MESSAGES.onePerDay });
    const api = screenApi({ 'POST /api/admin/foyer/nouvelle': () => answer });
    const user = userEvent.setup();
    open();
    await user.click(await screen.findByRole('button', { name: 'Envoyer une nouvelle aux foyers' }, FIRST));
    const dialog = await screen.findByRole('dialog', { name: 'Envoyer une nouvelle aux foyers' });
    await user.click(within(dialog).getByRole('button', { name: 'Envoyer' }));
    expect(within(dialog).getByText(FOYER_MESSAGES.sujet)).toBeInTheDocument();
    expect(within(dialog).getByText(FOYER_MESSAGES.texte)).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/admin/foyer/nouvelle')).toHaveLength(0);

    await user.type(within(dialog).getByRole('textbox', { name: /Sujet/ }), 'Permanence de samedi');
    await user.type(within(dialog).getByRole('textbox', { name: /Message/ }), 'Apportez vos bio-seaux, nous distribuons du compost.');
    await user.click(within(dialog).getByRole('button', { name: 'Envoyer' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(FOYER_MESSAGES.onePerDay);

    answer = reply(200, { status: 'success', message: FOYER_MESSAGES.newsSent(1), destinataires: 1 });
    await user.click(within(dialog).getByRole('button', { name: 'Envoyer' }));
    expect(await screen.findByText('Nouvelle envoyée à 1 foyer')).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: 'Envoyer une nouvelle aux foyers' })).not.toBeInTheDocument();
    expect(api.callsTo('POST', '/api/admin/foyer/nouvelle').map((c) => c.body)).toEqual([
      { site: 5, sujet: 'Permanence de samedi', texte: 'Apportez vos bio-seaux, nous distribuons du compost.' },
      { site: 5, sujet: 'Permanence de samedi', texte: 'Apportez vos bio-seaux, nous distribuons du compost.' },
    ]);
  });

  it('says when no household is registered yet', async () => {
    screenApi({ 'GET /api/admin/foyer/get/list/by/site/5': reply(200, listOf([])) });
    open();
    expect(await screen.findByText('Aucun foyer inscrit', {}, FIRST)).toBeInTheDocument();
    expect(screen.getByText('foyer confirmé').previousElementSibling).toHaveTextContent('0');
    expect(screen.queryByRole('article')).not.toBeInTheDocument();
  });

  it('shows a loading failure with a way to try again', async () => {
    let up = false;
    screenApi({ 'GET /api/admin/foyer/get/list/by/site/5': () => (up ? reply(200, listOf(ROWS)) : reply(500, { status: 'error', message: 'Une erreur est survenue.' })) });
    const user = userEvent.setup();
    open();
    expect(await screen.findByRole('alert', {}, FIRST)).toHaveTextContent('Les foyers du site n’ont pas pu être chargés.');
    up = true;
    await user.click(screen.getByRole('button', { name: 'Réessayer' }));
    expect(await screen.findByRole('region', { name: 'À confirmer (2)' })).toBeInTheDocument();
  });

  it('shows the refusal in place to a referent of another site', async () => {
    screenApi({
      'GET /api/admin/foyer/get/list/by/site/5': reply(403, { status: 'error', message: 'Accès non authorisé.' }),
      'GET /api/admin/site/get/infos/pour/intervention/5': reply(403, { status: 'error', message: 'Accès non authorisé.' }),
    });
    open();
    expect(await screen.findByRole('heading', { level: 1, name: 'Accès non authorisé.' }, FIRST)).toBeInTheDocument();
    expect(screen.getByText('Seuls les référents du site et les administrateurs voient ses foyers.')).toBeInTheDocument();
    expect(screen.queryByRole('article')).not.toBeInTheDocument();
  });
});
