import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PublicSite } from '../../../shared/schemas/public-sites';
import { mockApi, reply } from '../../../../tests/helpers/web-app';
import { PublicSitePage } from './public-site-page';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  document.getElementById('public-site-data')?.remove();
});

const SITE: PublicSite = {
  code: 'QUA012',
  nom: 'Jardin des Capucins',
  typeSite: 'Quartier',
  numero: '3',
  adresse: 'Rue de Siam',
  cp: '29200',
  ville: 'Brest',
  horaires: 'Tous les jours, de 8 h à 20 h',
  consignes: 'Épluchures, marc de café.',
  dernierRetournement: '2026-03-10T09:00:00.000Z',
  dernierTransfert: null,
  niveauApport: { niveau: '3/4', date: '2026-03-12T08:00:00.000Z' },
  compostMur: { niveau: '1/2', date: '2026-03-11T08:00:00.000Z', disponible: true },
  appName: 'Compost',
  contact: '02 98 33 50 50',
  categories: [
    { value: 'bac_plein', libelle: 'Bac plein' },
    { value: 'odeur', libelle: 'Odeur' },
    { value: 'autre', libelle: 'Autre' },
  ],
  texteMin: 10,
  texteMax: 500,
  permanences: [],
};

describe('public page of a site', () => {
  it('shows the data the server wrote into the page, without asking for it again', () => {
    const api = mockApi();
    const inline = document.createElement('script');
    inline.id = 'public-site-data';
    inline.type = 'application/json';
    inline.textContent = JSON.stringify(SITE);
    document.head.append(inline);
    render(<PublicSitePage code="qua012" />);
    expect(screen.getByRole('heading', { level: 1, name: 'Jardin des Capucins' })).toBeInTheDocument();
    expect(screen.getByText('Tous les jours, de 8 h à 20 h')).toBeInTheDocument();
    expect(screen.getByText('Épluchures, marc de café.')).toBeInTheDocument();
    const facts = screen.getByRole('region', { name: 'Où en est le site ?' });
    expect(within(facts).getByText('10/03/2026')).toBeInTheDocument();
    expect(within(facts).getByText('Pas encore enregistré')).toBeInTheDocument();
    expect(within(facts).getByText('3/4 (le 12/03/2026)')).toBeInTheDocument();
    expect(within(facts).getByText('Disponible (niveau 1/2 le 11/03/2026)')).toBeInTheDocument();
    expect(screen.getByText('02 98 33 50 50')).toBeInTheDocument();
    expect(api.calls).toEqual([]);
  });

  it('loads the site itself otherwise, and says so plainly when the site is not public', async () => {
    mockApi({ 'GET /api/public/site/QUA012': reply(200, { ...SITE, horaires: null, consignes: null }), 'GET /api/public/site/DEM001': reply(404, { status: 'error', message: 'Site introuvable.' }) });
    render(<PublicSitePage code="QUA012" />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Jardin des Capucins' })).toBeInTheDocument();
    // Texts the site has none of are left out rather than made up.
    expect(screen.queryByRole('heading', { name: 'Horaires' })).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Que déposer ?' })).not.toBeInTheDocument();
    cleanup();
    render(<PublicSitePage code="DEM001" />);
    expect(await screen.findByRole('heading', { name: 'Site introuvable' })).toBeInTheDocument();
  });

  it('offers to try again when the server cannot be reached', async () => {
    let up = false;
    mockApi({ 'GET /api/public/site/QUA012': () => (up ? reply(200, SITE) : reply(503, { status: 'error' })) });
    render(<PublicSitePage code="QUA012" />);
    expect(await screen.findByRole('alert')).toHaveTextContent('Une erreur est survenue. Réessayez dans un instant.');
    up = true;
    await userEvent.click(screen.getByRole('button', { name: 'Réessayer' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Jardin des Capucins' })).toBeInTheDocument();
  });

  it('sends a report without an account, asks consent for an e-mail, and thanks its author', async () => {
    const api = mockApi({
      'GET /api/public/site/QUA012': reply(200, SITE),
      'POST /api/public/site/QUA012/signalement': reply(200, { status: 'success', message: 'Merci ! Votre signalement a été transmis à l’équipe du site.' }),
    });
    const user = userEvent.setup();
    render(<PublicSitePage code="QUA012" />);
    await screen.findByRole('heading', { level: 1 });
    const send = screen.getByRole('button', { name: 'Envoyer le signalement' });
    await user.click(send);
    expect(screen.getByRole('alert')).toHaveTextContent('Vérifiez les champs signalés.');
    expect(screen.getByText('Choisissez une catégorie')).toBeInTheDocument();
    expect(screen.getByText('Entre 10 et 500 caractères')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/public/site/QUA012/signalement')).toHaveLength(0);

    await user.click(screen.getByRole('radio', { name: 'Bac plein' }));
    await user.type(screen.getByLabelText(/Description du problème/), 'Le bac déborde depuis hier.');
    await user.type(screen.getByLabelText('Adresse mail (facultatif)'), 'voisin@exemple.fr');
    await user.click(send);
    expect(screen.getByText('Cochez la case pour que nous puissions vous répondre, ou laissez l’adresse vide')).toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: /J’accepte que cette adresse serve uniquement à me répondre/ }));
    await user.click(send);
    expect(await screen.findByRole('status')).toHaveTextContent('Merci ! Votre signalement a été transmis à l’équipe du site.');
    expect(api.callsTo('POST', '/api/public/site/QUA012/signalement')[0].body).toEqual({
      categorie: 'bac_plein',
      texte: 'Le bac déborde depuis hier.',
      email: 'voisin@exemple.fr',
      consentement: true,
    });
  });

  it('shows the server’s refusals: field errors under their fields, a limit as a message', async () => {
    let answer = reply(400, { status: 'error', errors: [{ key: 'email', error: 'Adresse mail invalide' }] });
    mockApi({ 'GET /api/public/site/QUA012': reply(200, SITE), 'POST /api/public/site/QUA012/signalement': () => answer });
    const user = userEvent.setup();
    render(<PublicSitePage code="QUA012" />);
    await screen.findByRole('heading', { level: 1 });
    await user.click(screen.getByRole('radio', { name: 'Odeur' }));
    await user.type(screen.getByLabelText(/Description du problème/), 'Odeur forte près du bac.');
    await user.click(screen.getByRole('button', { name: 'Envoyer le signalement' }));
    expect(await screen.findByText('Adresse mail invalide')).toBeInTheDocument();
    expect(screen.getByLabelText('Adresse mail (facultatif)')).toHaveAttribute('aria-invalid', 'true');
    answer = reply(429, { status: 'error', message: 'Trop de signalements envoyés depuis votre connexion. Réessayez dans une heure.' });
    await user.click(screen.getByRole('button', { name: 'Envoyer le signalement' }));
    expect(await screen.findByText('Trop de signalements envoyés depuis votre connexion. Réessayez dans une heure.')).toBeInTheDocument();
  });
});
