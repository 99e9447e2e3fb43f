import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Loading, QueryState } from './query-state';

afterEach(cleanup);

const show = (ui: ReactNode) => render(<MantineProvider>{ui}</MantineProvider>);
const query = <T,>(data: T | undefined, isError = false) => ({ data, isError, refetch: vi.fn() });

describe('QueryState', () => {
  it('names the loader for screen readers and marks the wait as busy', () => {
    show(<Loading />);
    expect(screen.getByRole('status', { name: 'Chargement' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveAttribute('aria-busy', 'true');
  });

  it('waits while one query has no data yet, with its own label', () => {
    show(<QueryState queries={[query(1), query(undefined)]} label="Chargement du rapport">{() => 'contenu'}</QueryState>);
    expect(screen.getByRole('status')).toHaveAttribute('aria-busy', 'true');
    expect(screen.getByRole('status', { name: 'Chargement du rapport' })).toBeInTheDocument();
    expect(screen.queryByText('contenu')).not.toBeInTheDocument();
  });

  it("says 'Une erreur est survenue' with what failed, and 'Réessayer' reloads the failed queries only", async () => {
    const loaded = query(1);
    const failed = query(undefined, true);
    const waiting = query(undefined);
    show(<QueryState queries={[loaded, failed, waiting]} detail="Les sites n'ont pas pu être chargés.">{() => 'contenu'}</QueryState>);
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('Une erreur est survenue');
    expect(alert).toHaveTextContent("Les sites n'ont pas pu être chargés.");
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Réessayer' }));
    expect(failed.refetch).toHaveBeenCalledTimes(1);
    expect(loaded.refetch).not.toHaveBeenCalled();
    expect(waiting.refetch).not.toHaveBeenCalled();
  });

  it('hands every query its data in order, and keeps showing data whose refresh failed', () => {
    show(<QueryState queries={[query('Jardin'), query(['Brest', 'Quimper'], true)]}>{(site, villes) => `${site} à ${villes.join(' ou ')}`}</QueryState>);
    expect(screen.getByText('Jardin à Brest ou Quimper')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('draws nothing once loaded when the screen draws the data itself', () => {
    show(<QueryState queries={[query([])]} />);
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});
