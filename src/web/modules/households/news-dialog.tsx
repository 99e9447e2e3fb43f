// 'Envoyer une nouvelle aux foyers': a subject and a short text mailed to the site's confirmed
// households that take its news (each mail carries their unsubscribe and leave links, added by
// the server). One a day per site: the server's refusal (and 'no recipient') shows in the banner.
import { Button, Group, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { NOUVELLE_SUJET_MAX, NOUVELLE_TEXTE_MAX, nouvelleSchema } from '../../../shared/schemas/households';
import { Dialog } from '../../components/dialog';
import { ErrorBanner } from '../../components/form-dialog';
import { FIELDS_REQUIRED, useSaveAction, useZodForm } from '../../lib/form';
import { notifySuccess } from '../../lib/notify';
import { sendNews } from './households.api';

export function NewsDialog({ siteId, opened, onClose }: { siteId: number; opened: boolean; onClose: () => void }) {
  return (
    <Dialog opened={opened} onClose={onClose} title="Envoyer une nouvelle aux foyers" size="lg">
      {/* Mounted only while open: each opening starts from an empty form. */}
      {opened && <NewsForm siteId={siteId} onDone={onClose} />}
    </Dialog>
  );
}

function NewsForm({ siteId, onDone }: { siteId: number; onDone: () => void }) {
  const form = useZodForm(nouvelleSchema, { initialValues: { site: siteId, sujet: '', texte: '' } });
  const save = useSaveAction({ invalid: FIELDS_REQUIRED, serverMessage: true, setServerErrors: form.setServerErrors });
  const submit = form.onSubmit(
    (payload) =>
      save.run(async () => {
        const done = await sendNews(payload);
        notifySuccess(done.message);
        onDone();
      }),
    save.showInvalid,
  );
  const texte = form.values.texte;
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <Text size="sm">Le message part par mail aux foyers confirmés qui reçoivent les nouvelles du site. Une nouvelle par jour au plus.</Text>
        <ErrorBanner message={save.banner} />
        <TextInput label="Sujet" required maxLength={NOUVELLE_SUJET_MAX} data-autofocus {...form.getInputProps('sujet')} />
        <Textarea
          label="Message"
          required
          autosize
          minRows={4}
          maxRows={12}
          maxLength={NOUVELLE_TEXTE_MAX}
          description={`${texte.length}/${NOUVELLE_TEXTE_MAX} caractères`}
          {...form.getInputProps('texte')}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Annuler
          </Button>
          <Button type="submit" loading={save.saving}>
            Envoyer
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
