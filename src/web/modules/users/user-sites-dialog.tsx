// Dialog 'Site': the sites the user is referent of ('Aucun Site' when none) and a
// multi-select of every site, saved with PUT /api/admin/user/update/site/{userId}.
import { List, MultiSelect, Stack, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { siteLabel, userSitesUpdateSchema, USER_MESSAGES, type SiteOption, type UserRow } from '../../../shared/schemas/users';
import { Dialog } from '../../components/dialog';
import { DialogLoader, ErrorBanner, FormDialogFooter } from '../../components/form-dialog';
import { useSaveAction, useZodForm } from '../../lib/form';
import { notifySuccess } from '../../lib/notify';
import { allSitesQuery, updateUserSites, usersKeys, userSitesQuery } from './users.api';

export function UserSitesDialog({ user, onClose }: { user: UserRow | null; onClose: () => void }) {
  const current = useQuery({ ...userSitesQuery(user?.id ?? 0), enabled: user !== null });
  const all = useQuery({ ...allSitesQuery(), enabled: user !== null });
  return (
    <Dialog opened={user !== null} onClose={onClose} title="Site" size="lg">
      {user &&
        (current.isPending || all.isPending ? (
          <DialogLoader />
        ) : current.isError || all.isError ? (
          <ErrorBanner message="Une erreur est survenue : les sites n'ont pas pu être chargés." />
        ) : (
          <UserSitesForm key={user.id} user={user} current={current.data} all={all.data} onDone={onClose} />
        ))}
    </Dialog>
  );
}

function UserSitesForm({ user, current, all, onDone }: { user: UserRow; current: SiteOption[]; all: SiteOption[]; onDone: () => void }) {
  const queryClient = useQueryClient();
  const form = useZodForm(userSitesUpdateSchema, { initialValues: { site: current.map((s) => String(s.id)) } });
  const save = useSaveAction({ invalid: 'Veuillez renseigner les champs obligatoires', serverMessage: true, setServerErrors: form.setServerErrors });

  const submit = form.onSubmit(
    (payload) =>
      save.run(async () => {
        await updateUserSites(user.id, payload);
        notifySuccess(USER_MESSAGES.sitesUpdated);
        await queryClient.invalidateQueries({ queryKey: usersKeys.all });
        onDone();
      }),
    save.showInvalid,
  );

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <ErrorBanner message={save.banner} />
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
        <FormDialogFooter saving={save.saving} />
      </Stack>
    </form>
  );
}
