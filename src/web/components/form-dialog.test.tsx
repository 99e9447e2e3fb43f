import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DialogLoader, ErrorBanner, FormDialogFooter } from './form-dialog';

afterEach(cleanup);

const show = (ui: ReactNode) => render(<MantineProvider>{ui}</MantineProvider>);

describe('form dialog pieces', () => {
  it('shows the banner as an alert only when there is a message', () => {
    show(<ErrorBanner message={null} />);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    cleanup();
    show(<ErrorBanner message="Une erreur est survenue." />);
    expect(screen.getByRole('alert')).toHaveTextContent('Une erreur est survenue.');
  });

  it('names the loader for screen readers', () => {
    show(<DialogLoader />);
    expect(screen.getByLabelText('Chargement')).toBeInTheDocument();
  });

  it("submits the form with 'Enregistrer' and closes with 'Annuler'", async () => {
    const submit = vi.fn((e: { preventDefault: () => void }) => e.preventDefault());
    const cancel = vi.fn();
    show(
      <form onSubmit={submit}>
        <FormDialogFooter saving={false} onCancel={cancel} />
      </form>,
    );
    expect(screen.getByRole('button', { name: 'Enregistrer' })).toHaveAttribute('type', 'submit');
    expect(screen.getByRole('button', { name: 'Annuler' })).toHaveAttribute('type', 'button');
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    await userEvent.click(screen.getByRole('button', { name: 'Annuler' }));
    expect(submit).toHaveBeenCalledTimes(1);
    expect(cancel).toHaveBeenCalledTimes(1);
  });

  it("calls onSave from a plain button, and shows no 'Annuler' without onCancel", async () => {
    const save = vi.fn();
    show(<FormDialogFooter saving={false} onSave={save} />);
    expect(screen.queryByRole('button', { name: 'Annuler' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Enregistrer' })).toHaveAttribute('type', 'button');
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    expect(save).toHaveBeenCalledTimes(1);
  });

  it("disables 'Enregistrer' while saving or when told to", () => {
    show(<FormDialogFooter saving onCancel={() => {}} />);
    expect(screen.getByRole('button', { name: 'Enregistrer' })).toBeDisabled();
    cleanup();
    show(<FormDialogFooter saving={false} disabled onSave={() => {}} />);
    expect(screen.getByRole('button', { name: 'Enregistrer' })).toBeDisabled();
  });
});
