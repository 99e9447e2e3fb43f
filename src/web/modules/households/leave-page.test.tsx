import { cleanup, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FOYER_MESSAGES } from '../../../shared/schemas/households';
import { mockApi, renderApp, reply } from '../../../../tests/helpers/web-app';
import { householdsPublicRoutes, householdsRoutes } from './households.routes';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const FIRST = { timeout: 15_000 };
const JETON = 'eyJmIjoxMX0.c2lnbmF0dXJlLW9mLXRoZS1saW5r';
const LEAVE = 'Quitter le site et supprimer mes données';

const open = (query: string) => renderApp(`/foyer/quitter${query}`, { publicRoutes: householdsPublicRoutes, loggedRoutes: householdsRoutes });

describe('the page behind a household’s leave link', () => {
  it('changes nothing when opened; the button deletes the household and shows the server’s answer', async () => {
    const api = mockApi({ 'POST /api/public/foyer/quitter': reply(200, { status: 'success', message: FOYER_MESSAGES.left }) });
    const user = userEvent.setup();
    open(`?jeton=${JETON}`);
    const button = await screen.findByRole('button', { name: LEAVE }, FIRST);
    expect(screen.getByRole('heading', { level: 1, name: 'Quitter le site de compostage' })).toBeInTheDocument();
    // A mail scanner that opens the link deletes nobody.
    expect(api.callsTo('POST', '/api/public/foyer/quitter')).toHaveLength(0);
    await user.click(button);
    expect(await screen.findByText(FOYER_MESSAGES.left)).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: 'Vous avez quitté le site' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: LEAVE })).not.toBeInTheDocument();
    expect(api.callsTo('POST', '/api/public/foyer/quitter').map((c) => c.body)).toEqual([{ jeton: JETON }]);
  });

  it('says a used or forged link is no longer valid', async () => {
    const api = mockApi({ 'POST /api/public/foyer/quitter': reply(404, { status: 'error', message: FOYER_MESSAGES.linkInvalid }) });
    const user = userEvent.setup();
    open(`?jeton=${JETON}`);
    await user.click(await screen.findByRole('button', { name: LEAVE }, FIRST));
    expect(await screen.findByText('Ce lien n’est plus valide.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: LEAVE })).not.toBeInTheDocument();
    cleanup();
    // A link cut short in the mail client: said at once, nothing sent.
    open('?jeton=abc');
    expect(await screen.findByText('Ce lien n’est plus valide.', {}, FIRST)).toBeInTheDocument();
    cleanup();
    open('');
    expect(await screen.findByText('Ce lien n’est plus valide.', {}, FIRST)).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/public/foyer/quitter')).toHaveLength(1);
  });

  it('keeps the button when the server cannot be reached, to try again', async () => {
    let up = false;
    mockApi({ 'POST /api/public/foyer/quitter': () => (up ? reply(200, { status: 'success', message: FOYER_MESSAGES.left }) : reply(503, { status: 'error', message: 'Service momentanément indisponible, réessayez dans un instant.' })) });
    const user = userEvent.setup();
    open(`?jeton=${JETON}`);
    await user.click(await screen.findByRole('button', { name: LEAVE }, FIRST));
    expect(await screen.findByRole('alert')).toHaveTextContent('Une erreur est survenue. Réessayez dans un instant.');
    up = true;
    await user.click(screen.getByRole('button', { name: LEAVE }));
    expect(await screen.findByText(FOYER_MESSAGES.left)).toBeInTheDocument();
  });
});
