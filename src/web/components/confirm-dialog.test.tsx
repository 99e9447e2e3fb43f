import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Button, MantineProvider } from '@mantine/core';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useConfirm } from './confirm-dialog';
import { Dialog } from './dialog';

afterEach(cleanup);

/** A dialog whose 'Supprimer' asks first, as a row action of a dialog does. */
function Screen({ onConfirm }: { onConfirm: () => void }) {
  const [confirm, confirmDialog] = useConfirm();
  const [opened, setOpened] = useState(true);
  return (
    <MantineProvider env="test">
      <Dialog opened={opened} onClose={() => setOpened(false)} title="Cellules">
        <Button onClick={() => confirm({ title: 'Supprimer ?', message: 'Cette action est irréversible.', onConfirm })}>Supprimer</Button>
      </Dialog>
      {confirmDialog}
    </MantineProvider>
  );
}

const question = () => screen.queryByRole('dialog', { name: 'Supprimer ?' });

describe('ConfirmDialog', () => {
  it("starts on 'Non', which closes without doing anything", async () => {
    const onConfirm = vi.fn();
    render(<Screen onConfirm={onConfirm} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Supprimer' }));
    const dialog = await screen.findByRole('dialog', { name: 'Supprimer ?' });
    expect(within(dialog).getByText('Cette action est irréversible.')).toBeInTheDocument();
    await waitFor(() => expect(within(dialog).getByRole('button', { name: 'Non' })).toHaveFocus());
    await userEvent.click(within(dialog).getByRole('button', { name: 'Non' }));
    await waitFor(() => expect(question()).not.toBeInTheDocument());
    expect(onConfirm).not.toHaveBeenCalled();
    expect(screen.getByRole('dialog', { name: 'Cellules' })).toBeInTheDocument();
  });

  it("runs the action on 'Oui' and closes", async () => {
    const onConfirm = vi.fn();
    render(<Screen onConfirm={onConfirm} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Supprimer' }));
    await userEvent.click(within(await screen.findByRole('dialog', { name: 'Supprimer ?' })).getByRole('button', { name: 'Oui' }));
    expect(onConfirm).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(question()).not.toBeInTheDocument());
  });

  it('closes alone on Escape, leaving the dialog it was opened from', async () => {
    const onConfirm = vi.fn();
    render(<Screen onConfirm={onConfirm} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Supprimer' }));
    const dialog = await screen.findByRole('dialog', { name: 'Supprimer ?' });
    await waitFor(() => expect(within(dialog).getByRole('button', { name: 'Non' })).toHaveFocus());
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(question()).not.toBeInTheDocument());
    expect(screen.getByRole('dialog', { name: 'Cellules' })).toBeInTheDocument();
    expect(onConfirm).not.toHaveBeenCalled();
  });
});
