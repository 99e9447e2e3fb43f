// Referents of a status 1 site: a multi-select of the active external users; saving
// replaces the whole list (PUT /api/admin/site/update/user/{id}).
import { useState } from 'react';
import { MultiSelect, Stack, Text } from '@mantine/core';
import { Dialog } from '../../components/dialog';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { SiteDetail } from '../../../shared/schemas/sites';
import { ErrorBanner, FormDialogFooter } from '../../components/form-dialog';
import { QueryState } from '../../components/query-state';
import { useSaveAction } from '../../lib/form';
import { notifySuccess } from '../../lib/notify';
import { activeUsersQuery, siteQuery, sitesKeys, updateReferents } from './sites.api';

export function SiteReferentsDialog({ siteId, onClose }: { siteId: number | null; onClose: () => void }) {
  const site = useQuery({ ...siteQuery(siteId ?? 0), enabled: siteId !== null });
  const users = useQuery({ ...activeUsersQuery(), enabled: siteId !== null });
  return (
    <Dialog opened={siteId !== null} onClose={onClose} title="Référent(s) du site" size="lg">
      {siteId !== null && (
        <QueryState queries={[site, users]} detail="Les référents n'ont pas pu être chargés.">
          {(s, u) => <ReferentsForm key={s.id} site={s} users={u} onDone={onClose} />}
        </QueryState>
      )}
    </Dialog>
  );
}

function ReferentsForm({ site, users, onDone }: { site: SiteDetail; users: { id: number; nom: string; prenom: string | null; email: string }[]; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [selected, setSelected] = useState<string[]>(site.referents.map((r) => String(r.id)));
  const [error, setError] = useState<string | null>(null);
  const save = useSaveAction({
    invalid: 'Veuillez renseigner les champs obligatoires',
    serverMessage: true,
    setServerErrors: (errors) => {
      const user = errors.find((x) => x.key === 'user');
      setError(user?.error ?? null);
      return errors.filter((x) => x.key !== 'user');
    },
  });
  // A current referent no longer active still shows, so removing them stays possible.
  const options = [
    ...users.map((u) => ({ value: String(u.id), label: `${u.nom} ${u.prenom ?? ''}`.trim() + ` (${u.email})` })),
    ...site.referents.filter((r) => !users.some((u) => u.id === r.id)).map((r) => ({ value: String(r.id), label: `${r.nom} ${r.prenom ?? ''}`.trim() })),
  ];

  const submit = () => {
    setError(null);
    return save.run(async () => {
      await updateReferents(
        site.id,
        selected.map((s) => Number(s)),
      );
      notifySuccess('Référent(s) Site modifié(s)');
      await queryClient.invalidateQueries({ queryKey: sitesKeys.all });
      onDone();
    });
  };

  return (
    <Stack gap="sm">
      <ErrorBanner message={save.banner} />
      <Text size="sm">
        {site.nom ? `${site.nom} - ` : ''}
        {site.code}
      </Text>
      <MultiSelect
        label="Référent(s)"
        placeholder={selected.length === 0 ? 'Choisir des utilisateurs actifs' : undefined}
        data={options}
        value={selected}
        onChange={setSelected}
        searchable
        clearable
        clearButtonProps={{ 'aria-label': 'Retirer tous les référents' }}
        nothingFoundMessage="Aucun résultat"
        error={error}
        comboboxProps={{ withinPortal: false }}
      />
      <FormDialogFooter saving={save.saving} onCancel={onDone} onSave={() => void submit()} />
    </Stack>
  );
}
