import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { useState, type FormEvent, type ReactNode } from 'react';
import { TextInput } from '@mantine/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErrorBanner, FormDialogFooter } from './form-dialog';

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

  it('after a refused save, focuses the first field to correct and says how many beside the button', async () => {
    const scrolled = vi.fn();
    Element.prototype.scrollIntoView = scrolled;
    function Harness() {
      const [errors, setErrors] = useState<Record<string, string>>({});
      const submit = (e: FormEvent) => {
        e.preventDefault();
        setErrors({ ville: 'Champ obligatoire', adresse: 'Champ obligatoire' });
      };
      return (
        <form onSubmit={submit}>
          <TextInput label="Nom" />
          <TextInput label="Ville" error={errors.ville} />
          <TextInput label="Adresse" error={errors.adresse} />
          <FormDialogFooter saving={false} onCancel={() => {}} />
        </form>
      );
    }
    show(<Harness />);
    expect(screen.queryByText(/champs? à corriger/)).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    await waitFor(() => expect(screen.getByLabelText('Ville')).toHaveFocus());
    expect(scrolled).toHaveBeenCalled();
    const summary = screen.getByRole('button', { name: '2 champs à corriger' });
    screen.getByLabelText('Nom').focus();
    await userEvent.click(summary);
    expect(screen.getByLabelText('Ville')).toHaveFocus();
  });

  it('does the same when the server’s field errors come back after the save', async () => {
    Element.prototype.scrollIntoView = vi.fn();
    let answer: (errors: Record<string, string>) => void = () => {};
    function Harness() {
      const [saving, setSaving] = useState(false);
      const [errors, setErrors] = useState<Record<string, string>>({});
      answer = (e) => {
        setErrors(e);
        setSaving(false);
      };
      return (
        <form onSubmit={(e) => (e.preventDefault(), setSaving(true))}>
          <TextInput label="Nom" error={errors.nom} />
          <TextInput label="Code" error={errors.code} />
          <FormDialogFooter saving={saving} onCancel={() => {}} />
        </form>
      );
    }
    show(<Harness />);
    await userEvent.click(screen.getByRole('button', { name: 'Enregistrer' }));
    expect(screen.getByLabelText('Code')).not.toHaveFocus();
    act(() => answer({ code: 'Code déjà utilisé' }));
    await waitFor(() => expect(screen.getByLabelText('Code')).toHaveFocus());
    expect(screen.getByRole('button', { name: '1 champ à corriger' })).toBeInTheDocument();
  });
});
