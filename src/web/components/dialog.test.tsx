import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Button, MantineProvider, Popover, Select } from '@mantine/core';
import { DateInput } from '@mantine/dates';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { Dialog } from './dialog';

afterEach(cleanup);

/** A dialog holding a select, a popover (as a date picker is) and a second dialog. */
function Screen() {
  const [outer, setOuter] = useState(true);
  const [inner, setInner] = useState(false);
  return (
    <MantineProvider env="test">
      <Dialog opened={outer} onClose={() => setOuter(false)} title="Programmer">
        <Select label="Action" data={['Retourner', 'Arroser']} comboboxProps={{ withinPortal: false }} />
        <DateInput label="Date prévue de réalisation" valueFormat="DD/MM/YYYY" defaultDate="2026-03-01" />
        <Popover trapFocus>
          <Popover.Target>
            <Button>Date prévue</Button>
          </Popover.Target>
          <Popover.Dropdown>
            <Button>15</Button>
          </Popover.Dropdown>
        </Popover>
        <Button onClick={() => setInner(true)}>Ouvrir</Button>
        <Dialog opened={inner} onClose={() => setInner(false)} title="Confirmer">
          <Button>Oui</Button>
        </Dialog>
      </Dialog>
    </MantineProvider>
  );
}

const outerDialog = () => screen.queryByRole('dialog', { name: 'Programmer' });

describe('Dialog', () => {
  it('closes on Escape pressed in its own content, and names its close button', async () => {
    render(<Screen />);
    const dialog = await screen.findByRole('dialog', { name: 'Programmer' });
    expect(within(dialog).getByRole('button', { name: 'Fermer' })).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Ouvrir' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Oui' }));
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Confirmer' })).not.toBeInTheDocument());
    // Only the dialog on top closed.
    expect(outerDialog()).toBeInTheDocument();
    within(outerDialog()!).getByRole('button', { name: 'Ouvrir' }).focus();
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(outerDialog()).not.toBeInTheDocument());
  });

  it('leaves Escape to a picker or an open select inside it', async () => {
    render(<Screen />);
    const dialog = await screen.findByRole('dialog', { name: 'Programmer' });

    await userEvent.click(within(dialog).getByRole('button', { name: 'Date prévue' }));
    await userEvent.click(await screen.findByRole('button', { name: '15' }));
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('button', { name: '15' })).not.toBeInTheDocument());
    expect(outerDialog()).toBeInTheDocument();

    await userEvent.click(within(dialog).getByRole('combobox', { name: 'Action' }));
    expect(await screen.findByRole('option', { name: 'Arroser' })).toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('option', { name: 'Arroser' })).not.toBeInTheDocument());
    expect(outerDialog()).toBeInTheDocument();

    // A date input keeps the focus while its calendar is open: Escape closes the calendar.
    const calendar = () => document.querySelector('[data-dates-dropdown]');
    await userEvent.click(within(dialog).getByRole('textbox', { name: 'Date prévue de réalisation' }));
    await waitFor(() => expect(calendar()).not.toBeNull());
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(calendar()).toBeNull());
    expect(outerDialog()).toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(outerDialog()).not.toBeInTheDocument());
  });

  it('closes only the dialog on top when the focus fell out of every dialog', async () => {
    render(<Screen />);
    const dialog = await screen.findByRole('dialog', { name: 'Programmer' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Ouvrir' }));
    await screen.findByRole('dialog', { name: 'Confirmer' });
    // As when the focused button goes away (a switch that saves and reloads its list).
    (document.activeElement as HTMLElement | null)?.blur();
    expect(document.activeElement).toBe(document.body);
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Confirmer' })).not.toBeInTheDocument());
    expect(outerDialog()).toBeInTheDocument();
    (document.activeElement as HTMLElement | null)?.blur();
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(outerDialog()).not.toBeInTheDocument());
  });
});
