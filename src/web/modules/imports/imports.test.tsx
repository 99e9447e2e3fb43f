import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loggedAs, mockApi, renderApp, reply } from '../../../../tests/helpers/web-app';
import { expectScreenRefused } from '../../../../tests/helpers/web-screens';
import type { ImportReport } from '../../../shared/schemas/imports';
import { importsRoutes } from './imports.routes';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** An XMLHttpRequest that answers each upload with the next report, reporting upload progress first. */
function stubUploads(reports: ImportReport[]) {
  const sent: string[] = [];
  class FakeXhr {
    status = 0;
    response: unknown = null;
    responseType = '';
    upload: { onprogress: ((e: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = { onprogress: null };
    onload: (() => void) | null = null;
    onerror: (() => void) | null = null;
    private url = '';
    open(_method: string, url: string) {
      this.url = url;
    }
    send() {
      sent.push(this.url);
      const next = reports.shift()!;
      setTimeout(() => {
        this.upload.onprogress?.({ lengthComputable: true, loaded: 1, total: 1 });
        this.status = 200;
        this.response = next;
        this.onload?.();
      }, 0);
    }
  }
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
  return sent;
}

const base = { status: 'success' as const, lignes: 2, crees: 1, modifies: 0, inchanges: 0, avertissements: [], invitations: 0 };

describe('import screen', () => {
  it('is refused to other roles', async () => {
    await expectScreenRefused(['ROLE_ADMIN_SITE'], '/admin/import', importsRoutes);
  });

  it('shows the errors of a dry run with their line and column, and offers to import only a file without errors', async () => {
    mockApi({ 'GET /api/logged': loggedAs(['ROLE_ADMIN']), 'GET /api/admin/import/progression/:suivi': reply(404, { status: 'error' }) });
    const sent = stubUploads([
      { ...base, mode: 'essai', erreurs: [{ ligne: 3, colonne: 'Ville', message: 'Ville inconnue sur ce territoire (vérifiez le nom et le code postal)' }] },
      { ...base, mode: 'essai', crees: 2, erreurs: [] },
      { ...base, mode: 'import', crees: 2, erreurs: [] },
    ]);
    renderApp('/admin/import', { loggedRoutes: importsRoutes });
    expect(await screen.findByRole('heading', { name: 'Import' }, { timeout: 5000 })).toBeInTheDocument();
    const input = screen.getByLabelText(/Fichier \(CSV ou Excel/);
    await userEvent.upload((document.querySelector('input[type=file]') as HTMLInputElement | null) ?? input, new File(['Code;Nom\r\n'], 'sites.csv', { type: 'text/csv' }));
    await userEvent.click(screen.getByRole('button', { name: 'Vérifier le fichier' }));
    const table = await screen.findByRole('table', { name: 'Erreurs du fichier' });
    expect(within(table).getByText('Ville')).toBeInTheDocument();
    expect(within(table).getByText('3')).toBeInTheDocument();
    expect(screen.getByText(/1 erreur\(s\) : rien n’a été importé/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Importer' })).toBeNull();

    await userEvent.click(screen.getByRole('button', { name: 'Vérifier le fichier' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Importer' }));
    expect(await screen.findByText('Import terminé')).toBeInTheDocument();
    expect(screen.getByText(/2 créé\(s\)/)).toBeInTheDocument();
    expect(sent.map((u) => new URL(u, 'http://x').searchParams.get('mode'))).toEqual(['essai', 'essai', 'import']);
    expect(sent.every((u) => u.startsWith('/api/admin/import/sites?'))).toBe(true);
  });
});
