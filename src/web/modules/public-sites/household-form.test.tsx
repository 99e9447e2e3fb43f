import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FOYER_MESSAGES, FOYER_PERSONNES_MAX, FOYER_PRENOM_MAX } from '../../../shared/schemas/households';
import type { PublicSite } from '../../../shared/schemas/public-sites';
import { mockApi, reply } from '../../../../tests/helpers/web-app';
import { HOUSEHOLD_PERSONNES_MAX, HOUSEHOLD_PRENOM_MAX, HOUSEHOLD_TEXTS } from './household-texts';
import { formatOpening } from './public-permanences';
import { PublicSitePage } from './public-site-page';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const SITE: PublicSite = {
  code: 'QUA012',
  nom: 'Jardin des Capucins',
  typeSite: 'Quartier',
  numero: '3',
  adresse: 'Rue de Siam',
  cp: '29200',
  ville: 'Brest',
  horaires: null,
  consignes: null,
  dernierRetournement: null,
  dernierTransfert: null,
  niveauApport: null,
  compostMur: null,
  appName: 'Compost',
  contact: '02 98 33 50 50',
  categories: [{ value: 'autre', libelle: 'Autre' }],
  texteMin: 10,
  texteMax: 500,
  // Saturdays 17:00-19:00 in Paris: 24 October 2026 is still summer time (UTC+2), 31 October
  // is winter time (UTC+1), so the same wall-clock hours are different UTC instants.
  permanences: [
    { debut: '2026-10-24T15:00:00.000Z', fin: '2026-10-24T17:00:00.000Z', titre: 'Permanence du samedi', annulee: false },
    { debut: '2026-10-31T16:00:00.000Z', fin: '2026-10-31T18:00:00.000Z', titre: null, annulee: true },
    { debut: '2026-11-07T16:30:00.000Z', fin: '2026-11-07T18:00:00.000Z', titre: null, annulee: false },
  ],
};

const SENT = 'Merci ! Votre foyer est inscrit : les référents du site le confirmeront.';

async function openPage(handlers: Parameters<typeof mockApi>[0] = {}, site: object = SITE) {
  const api = mockApi({ 'GET /api/public/site/QUA012': reply(200, site), ...handlers });
  render(<PublicSitePage code="QUA012" />);
  await screen.findByRole('heading', { level: 1, name: 'Jardin des Capucins' });
  return api;
}

const form = () => screen.getByRole('region', { name: 'Je composte ici' });

describe('the households’ side of a site’s public page', () => {
  it('says the form’s messages in the words of the households’ contract', () => {
    expect(HOUSEHOLD_TEXTS.personnes).toBe(FOYER_MESSAGES.personnes);
    expect(HOUSEHOLD_TEXTS.email).toBe(FOYER_MESSAGES.email);
    expect(HOUSEHOLD_TEXTS.consentement).toBe(FOYER_MESSAGES.consentement);
    expect(HOUSEHOLD_PERSONNES_MAX).toBe(FOYER_PERSONNES_MAX);
    expect(HOUSEHOLD_PRENOM_MAX).toBe(FOYER_PRENOM_MAX);
  });

  it('writes an opening in Paris time and in French, across the change to winter time', () => {
    const now = new Date('2026-10-20T10:00:00.000Z');
    expect(formatOpening('2026-10-24T15:00:00.000Z', '2026-10-24T17:00:00.000Z', now)).toBe('Samedi 24 octobre, de 17 h à 19 h');
    expect(formatOpening('2026-10-31T16:00:00.000Z', '2026-10-31T18:00:00.000Z', now)).toBe('Samedi 31 octobre, de 17 h à 19 h');
    expect(formatOpening('2026-11-07T16:30:00.000Z', '2026-11-07T18:00:00.000Z', now)).toBe('Samedi 7 novembre, de 17 h 30 à 19 h');
    // Another year says which; an opening over midnight names both days.
    expect(formatOpening('2027-01-02T09:00:00.000Z', '2027-01-02T11:00:00.000Z', now)).toBe('Samedi 2 janvier 2027, de 10 h à 12 h');
    expect(formatOpening('2026-10-24T20:00:00.000Z', '2026-10-25T01:00:00.000Z', now)).toBe('Samedi 24 octobre, 22 h – dimanche 25 octobre, 2 h');
  });

  it('lists the next openings, marks a cancelled one, and links the calendar feed', async () => {
    await openPage();
    const openings = screen.getByRole('region', { name: 'Prochaines permanences' });
    const items = within(openings).getAllByRole('listitem');
    expect(items).toHaveLength(3);
    expect(items[0]).toHaveTextContent(/de 17 h à 19 h · Permanence du samedi$/);
    expect(items[0]).not.toHaveTextContent('Annulée');
    expect(items[1]).toHaveTextContent(/31 octobre, de 17 h à 19 h Annulée$/);
    expect(items[2]).toHaveTextContent(/7 novembre, de 17 h 30 à 19 h$/);
    expect(within(items[0]).getByText(/octobre/).closest('time')).toHaveAttribute('datetime', '2026-10-24T15:00:00.000Z');
    expect(within(openings).getByRole('link', { name: 'Ajouter à mon agenda' })).toHaveAttribute('href', '/api/public/site/QUA012/permanences.ics');
  });

  it('shows no openings section when none is planned, nor for a page without them', async () => {
    await openPage({}, { ...SITE, permanences: [] });
    expect(screen.queryByRole('region', { name: 'Prochaines permanences' })).not.toBeInTheDocument();
    cleanup();
    const { permanences: _left, ...older } = SITE;
    void _left;
    await openPage({}, older);
    expect(screen.queryByRole('region', { name: 'Prochaines permanences' })).not.toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Je composte ici' })).toBeInTheDocument();
  });

  it('checks every field at once before sending, asks consent for an e-mail, then registers the household', async () => {
    const api = await openPage({ 'POST /api/public/site/QUA012/foyer': reply(201, { status: 'success', message: SENT }) });
    const user = userEvent.setup();
    const send = within(form()).getByRole('button', { name: 'Inscrire mon foyer' });
    await user.type(within(form()).getByLabelText(/Adresse mail pour recevoir les nouvelles du site/), 'voisin@exemple');
    await user.click(send);
    expect(within(form()).getByRole('alert')).toHaveTextContent('Vérifiez les champs signalés.');
    const people = within(form()).getByLabelText(/Personnes dans le foyer/);
    expect(people).toHaveAttribute('aria-invalid', 'true');
    expect(people).toHaveAccessibleDescription(FOYER_MESSAGES.personnes);
    expect(within(form()).getByText(FOYER_MESSAGES.email)).toBeInTheDocument();
    expect(within(form()).getByText(FOYER_MESSAGES.consentement)).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/public/site/QUA012/foyer')).toHaveLength(0);

    await user.type(people, '21');
    await user.click(send);
    expect(within(form()).getByText(FOYER_MESSAGES.personnes)).toBeInTheDocument();

    await user.clear(people);
    await user.type(people, '3');
    await user.type(within(form()).getByLabelText('Prénom (facultatif)'), '  Léa ');
    await user.type(within(form()).getByLabelText(/Adresse mail pour recevoir/), '.fr');
    await user.click(within(form()).getByRole('checkbox', { name: 'J’ai reçu un bio-seau' }));
    await user.click(within(form()).getByRole('checkbox', { name: /J’accepte que cette adresse serve uniquement à m’envoyer les nouvelles/ }));
    await user.click(send);
    expect(await within(form()).findByRole('status')).toHaveTextContent(SENT);
    expect(api.callsTo('POST', '/api/public/site/QUA012/foyer').map((c) => c.body)).toEqual([
      { prenom: 'Léa', email: 'voisin@exemple.fr', consentement: true, personnes: 3, bioseau: true },
    ]);
  });

  it('sends a household without a name nor an e-mail as such', async () => {
    const api = await openPage({ 'POST /api/public/site/QUA012/foyer': reply(201, { status: 'success', message: SENT }) });
    const user = userEvent.setup();
    await user.type(within(form()).getByLabelText(/Personnes dans le foyer/), '1');
    await user.click(within(form()).getByRole('button', { name: 'Inscrire mon foyer' }));
    expect(await within(form()).findByRole('status')).toHaveTextContent(SENT);
    expect(api.callsTo('POST', '/api/public/site/QUA012/foyer')[0].body).toEqual({ prenom: null, email: null, consentement: false, personnes: 1, bioseau: false });
  });

  it('shows the server’s refusals: field errors under their fields, the limits as a message', async () => {
    let answer = reply(400, { status: 'error', errors: [{ key: 'prenom', error: FOYER_MESSAGES.prenom }, { key: 'bioseau', error: FOYER_MESSAGES.bioseau }] });
    await openPage({ 'POST /api/public/site/QUA012/foyer': () => answer });
    const user = userEvent.setup();
    await user.type(within(form()).getByLabelText(/Personnes dans le foyer/), '2');
    const send = within(form()).getByRole('button', { name: 'Inscrire mon foyer' });
    await user.click(send);
    expect(await within(form()).findByText(FOYER_MESSAGES.prenom)).toBeInTheDocument();
    expect(within(form()).getByLabelText('Prénom (facultatif)')).toHaveAttribute('aria-invalid', 'true');
    // An error with no field of its own goes to the banner rather than being lost.
    expect(within(form()).getByRole('alert')).toHaveTextContent(`Vérifiez les champs signalés. ${FOYER_MESSAGES.bioseau}`);

    answer = reply(429, { status: 'error', message: FOYER_MESSAGES.perAddress });
    await user.click(send);
    expect(await within(form()).findByRole('alert')).toHaveTextContent(FOYER_MESSAGES.perAddress);
    answer = reply(429, { status: 'error', message: FOYER_MESSAGES.perSite });
    await user.click(send);
    expect(await within(form()).findByText(FOYER_MESSAGES.perSite)).toBeInTheDocument();
  });

  it('keeps the robots’ field out of sight and out of the accessibility tree', async () => {
    await openPage();
    const field = form().querySelector<HTMLInputElement>('input[name="site_web"]');
    expect(field).not.toBeNull();
    expect(field!.closest('[aria-hidden="true"]')).not.toBeNull();
    expect(field).toHaveAttribute('tabindex', '-1');
  });
});
