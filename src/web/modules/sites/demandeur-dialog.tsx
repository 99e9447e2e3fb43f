// 'Détails demande': the requester of a site. Who asked and when is shown as recorded; the
// function, phones, e-mail and planned period and year can be corrected.
import { Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { Dialog } from '../../components/dialog';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { formatTel } from '../../../shared/schemas/account';
import { anneeRange, demandeurUpdateSchema, displayTel, FONCTIONS, PERIODES, type Demandeur } from '../../../shared/schemas/sites';
import { DialogLoader, ErrorBanner, FormDialogFooter } from '../../components/form-dialog';
import { useSaveAction, useZodForm } from '../../lib/form';
import { notifySuccess } from '../../lib/notify';
import { formatParisDate } from '../../../shared/dates';
import { demandeurQuery, sitesKeys, updateDemandeur } from './sites.api';

export function DemandeurDialog({ demandeurId, onClose }: { demandeurId: number | null; onClose: () => void }) {
  const demandeur = useQuery({ ...demandeurQuery(demandeurId ?? 0), enabled: demandeurId !== null });
  return (
    <Dialog opened={demandeurId !== null} onClose={onClose} title="Détails demande" size="lg">
      {demandeurId !== null &&
        (demandeur.isPending ? (
          <DialogLoader />
        ) : demandeur.isError ? (
          <ErrorBanner message="Une erreur est survenue : la demande n'a pas pu être chargée." />
        ) : (
          <DemandeurForm key={demandeur.data.id} demandeur={demandeur.data} onDone={onClose} />
        ))}
    </Dialog>
  );
}

function DemandeurForm({ demandeur, onDone }: { demandeur: Demandeur; onDone: () => void }) {
  const queryClient = useQueryClient();
  const years = anneeRange();
  const yearOptions = Array.from({ length: years.max - years.min + 1 }, (_, i) => String(years.min + i));
  // A year recorded before the range moved on stays visible; saving then asks for one in range.
  if (demandeur.anneeImplantation && !yearOptions.includes(String(demandeur.anneeImplantation))) yearOptions.unshift(String(demandeur.anneeImplantation));
  const form = useZodForm(demandeurUpdateSchema, {
    initialValues: {
      fonction: demandeur.fonction as string | null,
      precisions: demandeur.precisions ?? '',
      telephone: demandeur.telephone,
      telephone2: demandeur.telephone2 ?? '',
      email: demandeur.email ?? '',
      periodeImplantation: demandeur.periodeImplantation,
      anneeImplantation: demandeur.anneeImplantation ? String(demandeur.anneeImplantation) : null,
    },
  });
  const save = useSaveAction({ invalid: 'Veuillez renseigner les champs obligatoires', serverMessage: true, setServerErrors: form.setServerErrors });
  const submit = form.onSubmit(
    (payload) =>
      save.run(async () => {
        await updateDemandeur(demandeur.id, payload);
        notifySuccess('Informations modifiées');
        await queryClient.invalidateQueries({ queryKey: sitesKeys.demandeur(demandeur.id) });
        onDone();
      }),
    save.showInvalid,
  );
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <ErrorBanner message={save.banner} />
        <Text>
          {demandeur.civilite} {demandeur.nom} {demandeur.prenom}
        </Text>
        <Text size="sm" c="dimmed">
          {demandeur.date ? `Demande du ${formatParisDate(demandeur.date)}` : 'Date de la demande non renseignée'}
          {' · '}Téléphone actuel : {displayTel(demandeur.telephone)}
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
        <FormDialogFooter saving={save.saving} onCancel={onDone} />
      </Stack>
    </form>
  );
}
