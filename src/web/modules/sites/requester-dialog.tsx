// 'Détails demande': the requester of a site. Who asked and when is shown as recorded; the
// function, phones, e-mail and planned period and year can be corrected.
import { Select, SimpleGrid, Text, TextInput } from '@mantine/core';
import { Dialog } from '../../components/dialog';
import { useQuery } from '@tanstack/react-query';
import { formatTel } from '../../../shared/schemas/account';
import { anneeRange, requesterUpdateSchema, displayTel, FONCTIONS, PERIODES, type Requester } from '../../../shared/schemas/sites';
import { DialogForm } from '../../components/form-dialog';
import { QueryState } from '../../components/query-state';
import { useFormSave, useZodForm } from '../../lib/form';
import { formatParisDate } from '../../../shared/dates';
import { requesterQuery, sitesKeys, updateRequester } from './sites.api';

export function RequesterDialog({ requesterId, onClose }: { requesterId: number | null; onClose: () => void }) {
  const requester = useQuery({ ...requesterQuery(requesterId ?? 0), enabled: requesterId !== null });
  return (
    <Dialog opened={requesterId !== null} onClose={onClose} title="Détails demande" size="lg">
      {requesterId !== null && (
        <QueryState queries={[requester]} detail="La demande n'a pas pu être chargée.">
          {(r) => <RequesterForm key={r.id} requester={r} onDone={onClose} />}
        </QueryState>
      )}
    </Dialog>
  );
}

function RequesterForm({ requester, onDone }: { requester: Requester; onDone: () => void }) {
  const years = anneeRange();
  const yearOptions = Array.from({ length: years.max - years.min + 1 }, (_, i) => String(years.min + i));
  // A year recorded before the range moved on stays visible; saving then asks for one in range.
  if (requester.anneeImplantation && !yearOptions.includes(String(requester.anneeImplantation))) yearOptions.unshift(String(requester.anneeImplantation));
  const form = useZodForm(requesterUpdateSchema, {
    initialValues: {
      fonction: requester.fonction as string | null,
      precisions: requester.precisions ?? '',
      telephone: requester.telephone,
      telephone2: requester.telephone2 ?? '',
      email: requester.email ?? '',
      periodeImplantation: requester.periodeImplantation,
      anneeImplantation: requester.anneeImplantation ? String(requester.anneeImplantation) : null,
    },
  });
  const save = useFormSave(form, { serverMessage: true, call: (payload) => updateRequester(requester.id, payload), success: 'Informations modifiées', invalidate: [sitesKeys.requester(requester.id)], onDone });
  return (
    <DialogForm save={save} onCancel={onDone}>
      <Text>
        {requester.civilite} {requester.nom} {requester.prenom}
      </Text>
      <Text size="sm" c="dimmed">
        {requester.date ? `Demande du ${formatParisDate(requester.date)}` : 'Date de la demande non renseignée'}
        {' · '}Téléphone actuel : {displayTel(requester.telephone)}
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        <Select
          label="Fonction"
          withAsterisk
          data={[...FONCTIONS]}
          allowDeselect={false}
          comboboxProps={{ withinPortal: false }}
          {...form.getInputProps('fonction')}
          onChange={(value) => {
            form.setFieldValue('fonction', value);
            if (value !== 'Autre') form.setFieldValue('precisions', '');
          }}
        />
        {form.values.fonction === 'Autre' ? <TextInput label="Précisions sur la fonction" withAsterisk maxLength={100} {...form.getInputProps('precisions')} /> : <div />}
        <TextInput
          label="Téléphone"
          withAsterisk
          type="tel"
          inputMode="numeric"
          {...form.getInputProps('telephone')}
          onChange={(e) => form.setFieldValue('telephone', formatTel(e.currentTarget.value))}
        />
        <TextInput
          label="Téléphone 2"
          type="tel"
          inputMode="numeric"
          {...form.getInputProps('telephone2')}
          onChange={(e) => form.setFieldValue('telephone2', formatTel(e.currentTarget.value))}
        />
        <TextInput label="Adresse mail" type="email" {...form.getInputProps('email')} />
        <div />
        <Select label="Période d'implantation" placeholder="Aucune" clearable data={[...PERIODES]} comboboxProps={{ withinPortal: false }} {...form.getInputProps('periodeImplantation')} />
        <Select label="Année d'implantation" placeholder="Aucune" clearable searchable data={yearOptions} comboboxProps={{ withinPortal: false }} {...form.getInputProps('anneeImplantation')} />
      </SimpleGrid>
    </DialogForm>
  );
}
