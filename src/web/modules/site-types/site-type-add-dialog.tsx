// Add dialog of the site types screen: libelle and a code forced to upper case while typing
// (at most 3 letters), validated with the schema the API uses (POST /api/admin/typeSite/add).
import { useState } from 'react';
import { Alert, Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { formatSiteTypeCode, SITE_TYPE_CODE_MAX, SITE_TYPE_LIBELLE_MAX, SITE_TYPE_MESSAGES, siteTypeAddSchema } from '../../../shared/schemas/site-types';
import { readFailure } from '../../lib/api';
import { useZodForm } from '../../lib/form';
import { notifyError, notifySuccess } from '../../lib/notify';
import { addSiteType, siteTypesKeys } from './site-types.api';

const REQUIRED_FIELDS_MESSAGE = 'Veuillez renseigner les champs obligatoires';
const GENERIC_ERROR = 'Une erreur est survenue';

export function SiteTypeAddDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  return (
    <Modal closeButtonProps={{ 'aria-label': 'Fermer' }} opened={opened} onClose={onClose} title="Ajouter un type de site">
      {opened && <SiteTypeAddForm onDone={onClose} />}
    </Modal>
  );
}

function SiteTypeAddForm({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const [banner, setBanner] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const form = useZodForm(siteTypeAddSchema, { initialValues: { libelle: '', code: '' } });

  const submit = form.onSubmit(
    async (payload) => {
      setBanner(null);
      setSaving(true);
      try {
        await addSiteType(payload);
        notifySuccess(SITE_TYPE_MESSAGES.added);
        // The sites screen offers site types from the reference list: it must see the new one.
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: siteTypesKeys.all }),
          queryClient.invalidateQueries({ queryKey: ['reference', 'typeSites'] }),
        ]);
        onDone();
      } catch (e) {
        const failure = await readFailure(e);
        if (failure.status === 401 || failure.status === 403) return;
        if (failure.status === 400 && failure.errors.length > 0) {
          const unmatched = form.setServerErrors(failure.errors);
          setBanner([REQUIRED_FIELDS_MESSAGE, ...unmatched.map((x) => x.error)].join(' : '));
          notifyError(REQUIRED_FIELDS_MESSAGE);
        } else {
          setBanner(`${GENERIC_ERROR}.`);
          notifyError(GENERIC_ERROR);
        }
      } finally {
        setSaving(false);
      }
    },
    () => setBanner(REQUIRED_FIELDS_MESSAGE),
  );

  const code = form.getInputProps('code');
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        {banner && (
          <Alert color="red" role="alert">
            {banner}
          </Alert>
        )}
        <TextInput label="Libellé" required maxLength={SITE_TYPE_LIBELLE_MAX} data-autofocus {...form.getInputProps('libelle')} />
        <TextInput
          label="Code"
          required
          description={`${SITE_TYPE_CODE_MAX} lettres au plus, en majuscules`}
          maxLength={SITE_TYPE_CODE_MAX}
          {...code}
          onChange={(e) => form.setFieldValue('code', formatSiteTypeCode(e.currentTarget.value))}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Annuler
          </Button>
          <Button type="submit" loading={saving}>
            Enregistrer
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
