// Add dialog of the site types screen: libelle and a code forced to upper case while typing
// (at most 3 letters), validated with the schema the API uses (POST /api/admin/typeSite/add).
import { TextInput } from '@mantine/core';
import { formatSiteTypeCode, SITE_TYPE_CODE_MAX, SITE_TYPE_LIBELLE_MAX, SITE_TYPE_MESSAGES, siteTypeAddSchema } from '../../../shared/schemas/site-types';
import { Dialog } from '../../components/dialog';
import { DialogForm } from '../../components/form-dialog';
import { useFormSave, useZodForm } from '../../lib/form';
import { addSiteType, siteTypesKeys } from './site-types.api';

export function SiteTypeAddDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  return (
    <Dialog opened={opened} onClose={onClose} title="Ajouter un type de site">
      {opened && <SiteTypeAddForm onDone={onClose} />}
    </Dialog>
  );
}

function SiteTypeAddForm({ onDone }: { onDone: () => void }) {
  const form = useZodForm(siteTypeAddSchema, { initialValues: { libelle: '', code: '' } });
  // The sites screen offers site types from the reference list: it must see the new one.
  const save = useFormSave(form, { call: addSiteType, success: SITE_TYPE_MESSAGES.added, invalidate: [siteTypesKeys.all, ['reference', 'typeSites']], onDone });

  const code = form.getInputProps('code');
  return (
    <DialogForm save={save} onCancel={onDone}>
      <TextInput label="Libellé" required maxLength={SITE_TYPE_LIBELLE_MAX} data-autofocus {...form.getInputProps('libelle')} />
      <TextInput
        label="Code"
        required
        description={`${SITE_TYPE_CODE_MAX} lettres au plus, en majuscules`}
        maxLength={SITE_TYPE_CODE_MAX}
        {...code}
        onChange={(e) => form.setFieldValue('code', formatSiteTypeCode(e.currentTarget.value))}
      />
    </DialogForm>
  );
}
