// The permanences screen of a site, on the whole app with a fake API: the openings in Paris
// time with their openers and cancellations, signing up, scheduling (Paris wall-clock fields,
// repetition, the server's errors under the fields), cancelling with a reason, and the tally,
// sent through the phone's outbox (offline it waits there and shows on its permanence; a 400
// shows its errors under the fields). And the outbox page naming a waiting tally.
import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { loggedAs, mockApi, reply, renderApp, type MockHandler } from '../../../../tests/helpers/web-app';
import { fieldSite, openFieldScreen, outboxRows, startEachTestOnACleanPhone } from '../../../../tests/helpers/web-field-screens';
import type { PermanenceRow } from '../../../shared/schemas/permanences';
import { permanencesRoutes } from './permanences.routes';

configure({ asyncUtilTimeout: 10_000 });
const SLOW = { timeout: 10_000 };
const LIST = '/api/admin/permanence/get/list/by/site/5';

beforeAll(async () => {
  await import('./permanences-page');
}, 60_000);

startEachTestOnACleanPhone();

function row(overrides: Partial<PermanenceRow> = {}): PermanenceRow {
  return {
    id: 12,
    idSite: 5,
    // 16:00 UTC on Thursday 28 November 2030 is 17:00 in Paris (winter time, UTC+1).
    debut: '2030-11-28T16:00:00.000Z',
    fin: '2030-11-28T18:00:00.000Z',
    titre: 'Permanence du jeudi',
    message: null,
    serie: null,
    apresCoup: false,
    annulee: false,
    motifAnnulation: null,
    ouvreurs: [],
    jeTiens: false,
    bilan: null,
    ...overrides,
  };
}

/** A permanence that started an hour ago and ends in an hour. */
const started = (overrides: Partial<PermanenceRow> = {}) =>
  row({ id: 13, debut: new Date(Date.now() - 3600_000).toISOString(), fin: new Date(Date.now() + 3600_000).toISOString(), titre: null, ...overrides });

function api(permanences: PermanenceRow[] | MockHandler, extra: Record<string, MockHandler | 'network'> = {}, roles = ['ROLE_USER']) {
  return mockApi({
    'GET /api/logged': loggedAs(roles),
    'GET /api/admin/site/get/infos/pour/intervention/5': reply(200, fieldSite()),
    [`GET ${LIST}`]: Array.isArray(permanences) ? reply(200, { count: permanences.length, permanences }) : permanences,
    ...extra,
  });
}

const open = (path = '/admin/fiche/site/5/permanences') => renderApp(path, { loggedRoutes: permanencesRoutes });

describe('permanences screen', () => {
  it('names the screen, lists the openings in Paris time with their openers, and a cancelled one with its reason', async () => {
    api([
      row({ ouvreurs: [{ id: 3, nom: 'Anne MARTIN' }], serie: { id: 1, frequence: 'hebdomadaire', jusqua: '2030-12-26' } }),
      row({ id: 14, debut: '2030-12-05T16:00:00.000Z', fin: '2030-12-05T18:00:00.000Z', titre: null, annulee: true, motifAnnulation: 'Site inondé' }),
    ]);
    open();
    expect(await screen.findByRole('heading', { level: 1, name: 'Permanences' }, SLOW)).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Permanences – Compost'));
    const first = await screen.findByRole('listitem', { name: 'jeudi 28/11/2030, 17:00 – 19:00' });
    expect(within(first).getByText('Permanence du jeudi')).toBeInTheDocument();
    expect(within(first).getByText('Ouvreurs : Anne MARTIN')).toBeInTheDocument();
    expect(within(first).getByText('Chaque semaine, jusqu’au 26/12/2030')).toBeInTheDocument();
    const cancelled = screen.getByRole('listitem', { name: 'jeudi 05/12/2030, 17:00 – 19:00' });
    expect(within(cancelled).getByText('Annulée')).toBeInTheDocument();
    expect(within(cancelled).getByText('Motif : Site inondé')).toBeInTheDocument();
    expect(within(cancelled).queryByRole('button', { name: 'Je tiens la permanence' })).not.toBeInTheDocument();
    expect(await screen.findByText('QUA005 - Rue de Siam (Jardin des Capucins)')).toBeInTheDocument();
  });

  it("says 'Aucune permanence programmée' when there is none", async () => {
    api([]);
    open();
    expect(await screen.findByText('Aucune permanence programmée', {}, SLOW)).toBeInTheDocument();
  });

  it('says a refused site in place', async () => {
    api(reply(403, { status: 'error', message: 'Accès non authorisé.' }));
    open();
    expect(await screen.findByText(/Vous ne gérez pas les permanences de ce site/, {}, SLOW)).toBeInTheDocument();
  });

  it("signs the referent up with 'Je tiens la permanence'", async () => {
    let mine = false;
    const calls = api(() => reply(200, { count: 1, permanences: [row({ jeTiens: mine, ouvreurs: mine ? [{ id: 7, nom: 'Jean DUPONT' }] : [] })] }), {
      'POST /api/permanence/12/ouvreur': () => {
        mine = true;
        return reply(200, { status: 'success', message: 'Vous tenez cette permanence' });
      },
    });
    open();
    await userEvent.click(await screen.findByRole('button', { name: 'Je tiens la permanence' }, SLOW));
    expect(await screen.findByText('Vous tenez cette permanence')).toBeInTheDocument();
    expect(await screen.findByText('Ouvreurs : Jean DUPONT')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Je ne la tiens plus' })).toBeInTheDocument();
    expect(calls.callsTo('POST', '/api/permanence/12/ouvreur')).toHaveLength(1);
  });

  it('schedules a weekly permanence with Paris wall-clock times, and shows the server’s errors under their fields', async () => {
    let refuse = true;
    const calls = api([], {
      'POST /api/admin/permanence/add': () =>
        refuse
          ? reply(400, { status: 'error', message: 'Veuillez renseigner les champs obligatoires', errors: [{ key: 'recurrence.jusqua', error: 'Une répétition dure au plus un an' }] })
          : reply(200, { status: 'success', message: 'Permanence enregistrée', count: 5, ids: [1, 2, 3, 4, 5] }),
    });
    open();
    await userEvent.click(await screen.findByRole('button', { name: 'Programmer une permanence' }, SLOW));
    const dialog = await screen.findByRole('dialog', { name: 'Programmer une permanence' });
    // Nothing typed: each required field says so, and nothing is sent.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(dialog).findAllByText('Le début est obligatoire')).toHaveLength(2);
    expect(within(dialog).getByText('La fin est obligatoire')).toBeInTheDocument();
    expect(calls.callsTo('POST', '/api/admin/permanence/add')).toEqual([]);

    await userEvent.type(within(dialog).getByLabelText(/^Date/), '2030-11-28');
    await userEvent.type(within(dialog).getByLabelText(/^Début/), '17:00');
    await userEvent.type(within(dialog).getByLabelText(/^Fin/), '19:00');
    await userEvent.type(within(dialog).getByLabelText(/^Titre/), 'Permanence du jeudi');
    await userEvent.click(within(dialog).getByRole('checkbox', { name: 'Répéter' }));
    await userEvent.selectOptions(within(dialog).getByRole('combobox', { name: 'Fréquence' }), 'Chaque semaine');
    await userEvent.type(within(dialog).getByLabelText(/^Jusqu’au/), '2032-12-26');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(dialog).findByText('Une répétition dure au plus un an')).toBeInTheDocument();
    expect(within(dialog).getByLabelText(/^Jusqu’au/)).toHaveAttribute('aria-invalid', 'true');

    refuse = false;
    await userEvent.clear(within(dialog).getByLabelText(/^Jusqu’au/));
    await userEvent.type(within(dialog).getByLabelText(/^Jusqu’au/), '2030-12-26');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Permanence enregistrée')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Programmer une permanence' })).not.toBeInTheDocument());
    expect(calls.callsTo('POST', '/api/admin/permanence/add').map((c) => c.body)).toEqual([
      { site: 5, debut: '2030-11-28T17:00', fin: '2030-11-28T19:00', titre: 'Permanence du jeudi', message: null, recurrence: { frequence: 'hebdomadaire', jusqua: '2032-12-26' } },
      { site: 5, debut: '2030-11-28T17:00', fin: '2030-11-28T19:00', titre: 'Permanence du jeudi', message: null, recurrence: { frequence: 'hebdomadaire', jusqua: '2030-12-26' } },
    ]);
  });

  it("moves one occurrence with 'Modifier': the form opens on its Paris times, without repetition, and sends them", async () => {
    const calls = api([row({ serie: { id: 1, frequence: 'hebdomadaire', jusqua: '2030-12-26' } })], {
      'PUT /api/admin/permanence/update/12': reply(200, { status: 'success', message: 'Permanence modifiée' }),
    });
    open();
    await userEvent.click(await screen.findByRole('button', { name: 'Modifier' }, SLOW));
    const dialog = await screen.findByRole('dialog', { name: 'Modifier la permanence' });
    // 16:00 UTC in November is 17:00 in Paris.
    expect(within(dialog).getByLabelText(/^Date/)).toHaveValue('2030-11-28');
    expect(within(dialog).getByLabelText(/^Début/)).toHaveValue('17:00');
    expect(within(dialog).getByLabelText(/^Fin/)).toHaveValue('19:00');
    expect(within(dialog).queryByRole('checkbox', { name: 'Répéter' })).not.toBeInTheDocument();
    await userEvent.clear(within(dialog).getByLabelText(/^Début/));
    await userEvent.type(within(dialog).getByLabelText(/^Début/), '17:30');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Permanence modifiée')).toBeInTheDocument();
    expect(calls.callsTo('PUT', '/api/admin/permanence/update/12').map((c) => c.body)).toEqual([
      { debut: '2030-11-28T17:30', fin: '2030-11-28T19:00', titre: 'Permanence du jeudi', message: null },
    ]);
  });

  it('asks a reason before cancelling, refuses one too short, and sends it', async () => {
    const calls = api([row()], { 'PUT /api/admin/permanence/annuler/12': reply(200, { status: 'success', message: 'Permanence annulée : les ouvreurs et les foyers inscrits sont prévenus' }) });
    open();
    await userEvent.click(await screen.findByRole('button', { name: 'Annuler' }, SLOW));
    const dialog = await screen.findByRole('dialog', { name: 'Annuler la permanence' });
    await userEvent.type(within(dialog).getByLabelText(/Motif de l’annulation/), 'Ok');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Annuler la permanence' }));
    expect(await within(dialog).findByText('Entre 3 et 500 caractères')).toBeInTheDocument();
    expect(calls.callsTo('PUT', '/api/admin/permanence/annuler/12')).toEqual([]);
    await userEvent.type(within(dialog).getByLabelText(/Motif de l’annulation/), ' pas de bénévole');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Annuler la permanence' }));
    expect(await screen.findByText('Permanence annulée : les ouvreurs et les foyers inscrits sont prévenus')).toBeInTheDocument();
    expect(calls.callsTo('PUT', '/api/admin/permanence/annuler/12').map((c) => c.body)).toEqual([{ motif: 'Ok pas de bénévole' }]);
  });
});

describe('the tally of a permanence', () => {
  it('without network, waits in the outbox and shows on its permanence, said as estimated from the buckets', async () => {
    const calls = api([started()], { 'PUT /api/permanence/13/bilan': 'network' });
    open();
    await userEvent.click(await screen.findByRole('button', { name: 'Saisir le bilan' }, SLOW));
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    const dialog = await screen.findByRole('dialog', { name: 'Saisir le bilan' });
    await userEvent.type(within(dialog).getByLabelText(/Foyers reçus/), '14');
    await userEvent.type(within(dialog).getByLabelText(/Seaux apportés/), '9');
    expect(within(dialog).getByText('Kilos : estimés à partir des seaux')).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Bilan enregistré sur le téléphone, il sera envoyé dès le retour du réseau')).toBeInTheDocument();
    const rows = await outboxRows();
    expect(rows).toMatchObject([{ state: 'pending', target: { method: 'PUT', path: 'permanence/13/bilan' }, bilan: { site: 5, permanence: 13 }, payload: { foyers: 14, seaux: 9, kg: null, temperature: null } }]);
    expect((rows[0].payload as { clientId: string }).clientId).toBe(rows[0].clientId);
    expect(calls.callsTo('PUT', '/api/permanence/13/bilan')).toEqual([]);
    const card = screen.getByRole('listitem', { name: /– / });
    expect(await within(card).findByText('En attente d’envoi')).toBeInTheDocument();
    expect(within(card).getByText('Kilos : estimés à partir des seaux')).toBeInTheDocument();
    expect(within(card).queryByRole('button', { name: 'Saisir le bilan' })).not.toBeInTheDocument();
  });

  it('online, is sent at once; a 400 shows its errors under the fields and the correction keeps the entry', async () => {
    let refuse = true;
    const calls = api([started()], {
      'PUT /api/permanence/13/bilan': () =>
        refuse
          ? reply(400, { status: 'error', message: 'Veuillez renseigner les champs obligatoires', errors: [{ key: 'kg', error: 'Un poids entre 0 et 5000 kg' }] })
          : reply(200, { status: 'success', message: 'Bilan enregistré', bilan: { foyers: 14, seaux: 9, kg: 12.5, kgEstime: false, temperature: null, le: new Date().toISOString() } }),
    });
    open();
    await userEvent.click(await screen.findByRole('button', { name: 'Saisir le bilan' }, SLOW));
    const dialog = await screen.findByRole('dialog', { name: 'Saisir le bilan' });
    await userEvent.type(within(dialog).getByLabelText(/Foyers reçus/), '14');
    await userEvent.type(within(dialog).getByLabelText(/Seaux apportés/), '9');
    await userEvent.type(within(dialog).getByLabelText(/Kilos pesés/), '12,5');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(dialog).findByText('Un poids entre 0 et 5000 kg')).toBeInTheDocument();
    expect(within(dialog).getByLabelText(/Kilos pesés/)).toHaveAttribute('aria-invalid', 'true');
    const first = calls.callsTo('PUT', '/api/permanence/13/bilan');
    expect(first.map((c) => c.body)).toMatchObject([{ foyers: 14, seaux: 9, kg: 12.5, temperature: null }]);
    expect(await outboxRows()).toMatchObject([{ state: 'failed' }]);

    refuse = false;
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Bilan enregistré')).toBeInTheDocument();
    const all = calls.callsTo('PUT', '/api/permanence/13/bilan').map((c) => (c.body as { clientId: string }).clientId);
    // The correction is the same entry: the server sees one clientId.
    expect(new Set(all).size).toBe(1);
    await waitFor(async () => expect(await outboxRows()).toEqual([]));
  });

  it("is named 'Bilan de permanence – <site>' in the outbox, with its figures", async () => {
    api([started()], { 'PUT /api/permanence/13/bilan': 'network' });
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    open();
    await userEvent.click(await screen.findByRole('button', { name: 'Saisir le bilan' }, SLOW));
    const dialog = await screen.findByRole('dialog', { name: 'Saisir le bilan' });
    await userEvent.type(within(dialog).getByLabelText(/Foyers reçus/), '3');
    await userEvent.type(within(dialog).getByLabelText(/Seaux apportés/), '2');
    await userEvent.type(within(dialog).getByLabelText(/Température/), '21,5');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    await waitFor(async () => expect(await outboxRows()).toHaveLength(1));
    openFieldScreen('/admin/envois');
    const card = await screen.findByRole('listitem', { name: /^Bilan de permanence – QUA005 - Rue de Siam \(Jardin des Capucins\), / }, SLOW);
    expect(within(card).getByText('Foyers reçus : 3')).toBeInTheDocument();
    expect(within(card).getByText('Température : 21,5 °C')).toBeInTheDocument();
    expect(within(card).getByText('En attente')).toBeInTheDocument();
  });
});

describe('the list on the phone', () => {
  it('is one person’s field data the phone keeps, and forgets when someone else logs in', async () => {
    const { isPersistedQuery, isPersonalFieldQuery } = await import('../../offline/query-persist-keys');
    const { permanenceKeys } = await import('./permanences.api');
    expect(isPersistedQuery(permanenceKeys.site(5, 'a_venir'))).toBe(true);
    expect(isPersonalFieldQuery(permanenceKeys.site(5, 'passees'))).toBe(true);
  });
});
