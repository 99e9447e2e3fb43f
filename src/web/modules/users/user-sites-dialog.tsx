// Dialog 'Site': the sites the user is referent of ('Aucun Site' when none) and a
// multi-select of every site, saved with PUT /api/admin/user/update/site/{userId}.
import { useState } from 'react';
import { Alert, Button, Center, Group, List, Loader, Modal, MultiSelect, Stack, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { siteLabel, userSitesUpdateSchema, USER_MESSAGES, type SiteOption, type UserRow } from '../../../shared/schemas/users';
import { useZodForm } from '../../lib/form';
import { notifySuccess } from '../../lib/notify';
import { showSaveFailure } from './save-failure';
import { allSitesQuery, updateUserSites, usersKeys, userSitesQuery } from './users.api';

export function UserSitesDialog({ user, onClose }: { user: UserRow | null; onClose: () => void }) {
  const current = useQuery({ ...userSitesQuery(user?.id ?? 0), enabled: user !== null });
  const all = useQuery({ ...allSitesQuery(), enabled: user !== null });
  return (
    <Modal closeButtonProps={{ 'aria-label': 'Fermer' }} opened={user !== null} onClose={onClose} title="Site" size="lg">
      {user &&
        (current.isPending || all.isPending ? (
          <Center py="xl">
            <Loader aria-label="Chargement" />
          </Center>
        ) : current.isError || all.isError ? (
          <Alert color="red" role="alert">
            Une erreur est survenue : les sites n&apos;ont pas pu être chargés.
          </Alert>
        ) : (
          <UserSitesForm key={user.id} user={user} current={current.data} all={all.data} onDone={onClose} />
        ))}
    </Modal>
  );
}

function UserSitesForm({ user, current, all, onDone }: { user: UserRow; current: SiteOption[]; all: SiteOption[]; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [banner, setBanner] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const form = useZodForm(userSitesUpdateSchema, { initialValues: { site: current.map((s) => String(s.id)) } });

  const submit = form.onSubmit(
    async (payload) => {
      setBanner(null);
      setSaving(true);
      try {
        await updateUserSites(user.id, payload);
        notifySuccess(USER_MESSAGES.sitesUpdated);
        await queryClient.invalidateQueries({ queryKey: usersKeys.all });
        onDone();
      } catch (e) {
        await showSaveFailure(e, { setServerErrors: form.setServerErrors, setBanner });
      } finally {
        setSaving(false);
      }
    },
    () => setBanner('Veuillez renseigner les champs obligatoires'),
  );

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        {banner && (
          <Alert color="red" role="alert">
            {banner}
          </Alert>
        )}
        <Text size="sm" fw={500}>
          Sites de {[user.prenom, user.nom].filter(Boolean).join(' ')}
        </Text>
        {current.length === 0 ? (
          <Text size="sm" c="red">
            Aucun Site
          </Text>
        ) : (
          <List size="sm" aria-label="Sites actuels">
            {current.map((s) => (
              <List.Item key={s.id}>{siteLabel(s)}</List.Item>
            ))}
          </List>
        )}
        <MultiSelect
          label="Sites"
          required
          searchable
          clearable
          clearButtonProps={{ 'aria-label': 'Retirer tous les sites' }}
          nothingFoundMessage="Aucun résultat"
          data={all.map((s) => ({ value: String(s.id), label: siteLabel(s) }))}
          comboboxProps={{ withinPortal: false }}
          {...form.getInputProps('site')}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={saving}>
            Enregistrer
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
