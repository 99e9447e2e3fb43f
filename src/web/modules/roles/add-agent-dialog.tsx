// The 'Ajouter' dialog of a role: an autocomplete over the agents, searched on the server
// one second after the last keystroke and never filtered again in the browser.
import { useState } from 'react';
import { Button, Group, Loader, Select, Stack } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { agentName, ROLE_MESSAGES, type Agent } from '../../../shared/schemas/roles';
import { Dialog } from '../../components/dialog';
import { DEBOUNCE_MS } from '../../components/use-list-query';
import { agentSearchQuery } from './roles.api';

export function AddAgentDialog({ opened, exclude, onAdd, onClose }: { opened: boolean; exclude: number[]; onAdd: (agent: Agent) => void; onClose: () => void }) {
  return (
    <Dialog opened={opened} onClose={onClose} title="Ajouter" zIndex={300}>
      {opened && <AddAgentForm exclude={exclude} onAdd={onAdd} onClose={onClose} />}
    </Dialog>
  );
}

function AddAgentForm({ exclude, onAdd, onClose }: { exclude: number[]; onAdd: (agent: Agent) => void; onClose: () => void }) {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), DEBOUNCE_MS);
  const [selected, setSelected] = useState<Agent | null>(null);
  const [error, setError] = useState<string | null>(null);
  const agents = useQuery(agentSearchQuery(debounced));
  // While the user types or the server searches, the previous answer is stale: show none of it.
  const searching = search.trim() !== debounced || agents.isFetching;

  const found = searching ? [] : (agents.data ?? []).filter((a) => !exclude.includes(a.id));
  // The chosen agent stays an option even when a later search no longer returns them.
  const options = selected && !found.some((a) => a.id === selected.id) ? [selected, ...found] : found;

  const add = () => {
    if (!selected) {
      setError(ROLE_MESSAGES.selectAgent);
      return;
    }
    onAdd(selected);
  };

  return (
    <Stack gap="sm">
      <Select
        label="Ajouter un agent"
        placeholder="Prénom ou nom"
        searchable
        searchValue={search}
        onSearchChange={setSearch}
        // The server already filtered by name: show what it answered.
        filter={({ options: all }) => all}
        data={options.map((a) => ({ value: String(a.id), label: agentName(a) }))}
        value={selected ? String(selected.id) : null}
        onChange={(v) => {
          setSelected(options.find((a) => String(a.id) === v) ?? null);
          setError(null);
        }}
        nothingFoundMessage={searching ? 'Recherche…' : 'Aucun résultat'}
        rightSection={searching && search.trim() !== '' ? <Loader size="xs" role="status" aria-label="Recherche en cours" /> : undefined}
        error={error ?? (agents.isError ? 'Une erreur est survenue' : undefined)}
        comboboxProps={{ withinPortal: false }}
      />
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          Annuler
        </Button>
        <Button onClick={add}>Ajouter</Button>
      </Group>
    </Stack>
  );
}
