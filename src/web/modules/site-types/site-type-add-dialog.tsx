// Add dialog of the site types screen: libelle and a code forced to upper case while typing
// (at most 3 letters), validated with the schema the API uses (POST /api/admin/typeSite/add).
import { Stack, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { formatSiteTypeCode, SITE_TYPE_CODE_MAX, SITE_TYPE_LIBELLE_MAX, SITE_TYPE_MESSAGES, siteTypeAddSchema } from '../../../shared/schemas/site-types';
import { Dialog } from '../../components/dialog';
import { ErrorBanner, FormDialogFooter } from '../../components/form-dialog';
import { useSaveAction, useZodForm } from '../../lib/form';
import { notifySuccess } from '../../lib/notify';
import { addSiteType, siteTypesKeys } from './site-types.api';

export function SiteTypeAddDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  return (
    <Dialog opened={opened} onClose={onClose} title="Ajouter un type de site">
      {opened && <SiteTypeAddForm onDone={onClose} />}
    </Dialog>
  );
}

function SiteTypeAddForm({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const form = useZodForm(siteTypeAddSchema, { initialValues: { libelle: '', code: '' } });
  const save = useSaveAction({ invalid: 'Veuillez renseigner les champs obligatoires', setServerErrors: form.setServerErrors });

  const submit = form.onSubmit(
    (payload) =>
      save.run(async () => {
        await addSiteType(payload);
        notifySuccess(SITE_TYPE_MESSAGES.added);
        // The sites screen offers site types from the reference list: it must see the new one.
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: siteTypesKeys.all }),
          queryClient.invalidateQueries({ queryKey: ['reference', 'typeSites'] }),
        ]);
        onDone();
      }),
    save.showInvalid,
  );

  const code = form.getInputProps('code');
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <ErrorBanner message={save.banner} />
        <TextInput label="Libellé" required maxLength={SITE_TYPE_LIBELLE_MAX} data-autofocus {...form.getInputProps('libelle')} />
        <TextInput
          label="Code"
          required
          description={`${SITE_TYPE_CODE_MAX} lettres au plus, en majuscules`}
          maxLength={SITE_TYPE_CODE_MAX}
          {...code}
          onChange={(e) => form.setFieldValue('code', formatSiteTypeCode(e.currentTarget.value))}
        />
        <FormDialogFooter saving={save.saving} onCancel={onDone} />
      </Stack>
    </form>
  );
}
