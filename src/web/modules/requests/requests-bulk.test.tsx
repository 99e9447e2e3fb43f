// The board's dialogs on a selection: 'Même date pour toutes' in 'Programmer', the reason in
// 'Annuler', the toasts that say how many, and the server's refusal of a whole selection shown
// under each request it names.
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { loggedAs, mockApi, renderApp, reply } from '../../../../tests/helpers/web-app';
import { behaveLikeABrowserForTables } from '../../../../tests/helpers/web-screens';
import type { DemandeIntervention } from '../../../shared/schemas/requests';
import { requestsRoutes } from './requests.routes';

behaveLikeABrowserForTables();
afterEach(() => cleanup());

const DAY_MS = 24 * 3600 * 1000;
const PARIS = new Intl.DateTimeFormat('fr-FR', { timeZone: 'Europe/Paris', day: '2-digit', month: '2-digit', year: 'numeric' });
/** dd/MM/yyyy in Paris, `n` days from now, as typed in the date picker. */
const frIn = (n: number) => PARIS.format(new Date(Date.now() + n * DAY_MS));
const isoDay = (fr: string) => fr.split('/').reverse().join('-');
const invalid = (input: HTMLElement) => input.getAttribute('aria-invalid') === 'true';
/** Enters a day in a date picker in one go (a paste), then leaves the field. */
async function enterDay(input: HTMLElement, day: string, away: HTMLElement) {
  await userEvent.clear(input);
  await userEvent.click(input);
  await userEvent.paste(day);
  await userEvent.click(away);
}

function demande(id: number, dueInDays: number, over: Partial<DemandeIntervention> = {}): DemandeIntervention {
  return {
    id,
    idStatut: 3,
    statut: 'En attente',
    dateEcheance: new Date(Date.now() + dueInDays * DAY_MS).toISOString(),
    dateProgrammee: null,
    programmationReferent: null,
    programmationAgent: null,
    idAction: 18,
    actionDeclenchante: 'Réparation à effectuer',
    referent: 'MARTIN Jeanne',
    agent: null,
    idActionProgrammee: 14,
    actionProgrammee: 'Réparation effectuée',
    idSite: 5,
    site: 'Jardin des Capucins',
    adresse: '2 rue de Siam, 29200 Brest',
    value: 'Couvercle cassé',
    idBac: 40 + id,
    numero: id - 10,
    destinationIdBac: null,
    idInterventionDeclenchante: 900 + id,
    dateDeclenchement: new Date().toISOString(),
    nbSignalements: 1,
    dernierSignalement: null,
    delaiJours: 14,
    photos: [],
    ...over,
  };
}

const board = (cards: DemandeIntervention[], more: Record<string, ReturnType<typeof reply>> = {}) =>
  mockApi({
    'GET /api/logged': loggedAs(['ROLE_PRESTATAIRE']),
    'GET /api/admin/demande/intervention/get/list': reply(200, { count: cards.length, demandesInterventions: cards }),
    'GET /api/admin/demande/intervention/get/sites': reply(200, [{ id: 5, site: 'Jardin des Capucins', ville: 'Brest', count: cards.length }]),
    'GET /api/admin/site/get/infos/pour/intervention/5': reply(200, { id: 5, code: 'QUA001', nom: 'Jardin des Capucins', numero: '2', adresse: 'rue de Siam', cp: '29200', ville: 'Brest', typeSite: 'Quartier', siteComposteurs: [] }),
    ...more,
  });

/** Selects every card, then opens the dialog of `button` ('Programmer', 'Annuler') on the selection. */
async function openOnSelection(button: string, ids: number[]) {
  renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
  const first = await screen.findByRole('article', { name: `Demande ${ids[0]}` }, { timeout: 15_000 });
  for (const id of ids) await userEvent.click(within(screen.getByRole('article', { name: `Demande ${id}` })).getByRole('checkbox'));
  await userEvent.click(within(first).getByRole('button', { name: `${button} (${ids.length})` }));
}

describe("'Programmer' on a selection", () => {
  it("fills every request's date from 'Même date pour toutes', names at once those it does not suit, and plans them all in one call", async () => {
    const api = board([demande(11, 10), demande(12, 10), demande(13, 1)], {
      'POST /api/admin/demande/intervention/programmer': reply(200, { status: 'success', message: "Demande(s) d'intervention(s) programmée(s) avec succès", count: 3 }),
    });
    await openOnSelection('Programmer', [11, 12, 13]);
    const dialog = await screen.findByRole('dialog', { name: 'Programmer' });
    const dates = within(dialog).getAllByLabelText(/Date prévue de réalisation/);
    expect(dates).toHaveLength(3);
    const day = frIn(3);
    const away = within(dialog).getByText('Site : Jardin des Capucins');
    await enterDay(within(dialog).getByLabelText('Même date pour toutes'), day, away);
    expect(dates.map((d) => (d as HTMLInputElement).value)).toEqual([day, day, day]);
    // Request 13 is due tomorrow: the day is refused under its own date, the others keep it.
    expect(dates.map(invalid)).toEqual([false, false, true]);
    expect(within(dialog).getByText(`Entre le ${frIn(0)} et le ${frIn(1)}`)).toBeInTheDocument();

    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Veuillez renseignez les champs obligatoires');
    expect(api.callsTo('POST', '/api/admin/demande/intervention/programmer')).toHaveLength(0);

    await enterDay(dates[2], frIn(1), away);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('3 demandes programmées')).toBeInTheDocument();
    expect(screen.getByText("Demande(s) d'intervention(s) programmée(s) avec succès")).toBeInTheDocument();
    const sent = api.callsTo('POST', '/api/admin/demande/intervention/programmer');
    expect(sent).toHaveLength(1);
    expect((sent[0].body as { values: { demandeIntervention: number; date: string }[] }).values.map((v) => [v.demandeIntervention, v.date])).toEqual([
      [11, isoDay(day)],
      [12, isoDay(day)],
      [13, isoDay(frIn(1))],
    ]);
  }, 40_000);

  it("offers no 'Même date pour toutes' for a single request", async () => {
    board([demande(11, 10)]);
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    const card = await screen.findByRole('article', { name: 'Demande 11' }, { timeout: 15_000 });
    await userEvent.click(within(card).getByRole('button', { name: 'Programmer' }));
    const dialog = await screen.findByRole('dialog', { name: 'Programmer' });
    expect(within(dialog).queryByLabelText('Même date pour toutes')).toBeNull();
  });

  it('shows under each date the refusal the server names, and the message in the banner', async () => {
    const refusal = "La date prévue de réalisation doit être comprise entre aujourd'hui et la date d'échéance";
    board([demande(11, 10), demande(12, 10)], {
      'POST /api/admin/demande/intervention/programmer': reply(409, { status: 'error', message: refusal, errors: [{ key: 'values1.date', error: refusal }] }),
    });
    await openOnSelection('Programmer', [11, 12]);
    const dialog = await screen.findByRole('dialog', { name: 'Programmer' });
    await enterDay(within(dialog).getByLabelText('Même date pour toutes'), frIn(2), within(dialog).getByText('Site : Jardin des Capucins'));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(refusal);
    const dates = within(dialog).getAllByLabelText(/Date prévue de réalisation/);
    expect(dates.map(invalid)).toEqual([false, true]);
  });
});

describe("'Annuler' on a selection", () => {
  it('sends the one reason with every selected request and says how many were cancelled', async () => {
    const api = board([demande(11, 10), demande(12, 10), demande(13, 10)], {
      'PUT /api/admin/demande/intervention/delete': reply(200, { status: 'success', message: "Demande(s) d'intervention(s) annulée(s) avec succès", count: 3 }),
    });
    await openOnSelection('Annuler', [11, 12, 13]);
    const dialog = await screen.findByRole('dialog', { name: "Annuler ces demandes d'interventions ?" });
    await userEvent.click(within(dialog).getByRole('textbox', { name: "Motif d'annulation" }));
    await userEvent.paste('Site fermé pour travaux\njusqu’en juin');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Oui' }));
    expect(await screen.findByText('3 demandes annulées')).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/demande/intervention/delete').map((c) => c.body)).toEqual([
      { demandesInterventions: [11, 12, 13], motif: 'Site fermé pour travaux\njusqu’en juin' },
    ]);
  });

  it('refuses a reason longer than 500 characters before sending', async () => {
    const api = board([demande(11, 10)]);
    renderApp('/admin/demande/intervention/list', { loggedRoutes: requestsRoutes });
    const card = await screen.findByRole('article', { name: 'Demande 11' }, { timeout: 15_000 });
    await userEvent.click(within(card).getByRole('button', { name: 'Annuler' }));
    const dialog = await screen.findByRole('dialog', { name: "Annuler cette demande d'intervention ?" });
    const motif = within(dialog).getByRole('textbox', { name: "Motif d'annulation" });
    await userEvent.click(motif);
    await userEvent.paste('x'.repeat(501));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Oui' }));
    expect(within(dialog).getByText("Le motif d'annulation ne doit pas dépasser 500 caractères")).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/admin/demande/intervention/delete')).toHaveLength(0);
  });

  it('names under each request why the server cancelled none of them', async () => {
    const closed = "Cette demande d'intervention a déjà été réalisée ou annulée";
    board([demande(11, 10), demande(12, 10), demande(13, 10)], {
      'PUT /api/admin/demande/intervention/delete': reply(409, {
        status: 'error',
        message: closed,
        errors: [
          { key: 'demandesInterventions0', error: closed },
          { key: 'demandesInterventions2', error: closed },
        ],
      }),
    });
    await openOnSelection('Annuler', [11, 12, 13]);
    const dialog = await screen.findByRole('dialog', { name: "Annuler ces demandes d'interventions ?" });
    await userEvent.type(within(dialog).getByRole('textbox', { name: "Motif d'annulation" }), 'Doublons');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Oui' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(closed);
    const items = within(within(dialog).getByRole('list', { name: 'Demandes à annuler' })).getAllByRole('listitem');
    expect(items.map((li) => li.textContent?.includes(closed))).toEqual([true, false, true]);
    expect(screen.queryByText(/demandes? annulées?$/)).toBeNull();
  });
});
