// Dialog 'Site': the sites the user is referent of ('Aucun Site' when none) and a
// multi-select of every site, saved with PUT /api/admin/user/update/site/{userId}.
import { List, MultiSelect, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { siteLabel, userSitesUpdateSchema, USER_MESSAGES, type SiteOption, type UserRow } from '../../../shared/schemas/users';
import { Dialog } from '../../components/dialog';
import { DialogForm } from '../../components/form-dialog';
import { QueryState } from '../../components/query-state';
import { useFormSave, useZodForm } from '../../lib/form';
import { allSitesQuery, updateUserSites, usersKeys, userSitesQuery } from './users.api';

export function UserSitesDialog({ user, onClose }: { user: UserRow | null; onClose: () => void }) {
  const current = useQuery({ ...userSitesQuery(user?.id ?? 0), enabled: user !== null });
  const all = useQuery({ ...allSitesQuery(), enabled: user !== null });
  return (
    <Dialog opened={user !== null} onClose={onClose} title="Site" size="lg">
      {user && (
        <QueryState queries={[current, all]} detail="Les sites n'ont pas pu être chargés.">
          {(mine, sites) => <UserSitesForm key={user.id} user={user} current={mine} all={sites} onDone={onClose} />}
        </QueryState>
      )}
    </Dialog>
  );
}

function UserSitesForm({ user, current, all, onDone }: { user: UserRow; current: SiteOption[]; all: SiteOption[]; onDone: () => void }) {
  const form = useZodForm(userSitesUpdateSchema, { initialValues: { site: current.map((s) => String(s.id)) } });
  const save = useFormSave(form, { serverMessage: true, call: (payload) => updateUserSites(user.id, payload), success: USER_MESSAGES.sitesUpdated, invalidate: [usersKeys.all], onDone });

  return (
    <DialogForm save={save}>
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
    </DialogForm>
  );
}
