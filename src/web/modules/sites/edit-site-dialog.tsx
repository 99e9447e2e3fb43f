// 'Modifier Site': the edit dialog of a site. It has the status dropdown; a changed convention
// date is added to the site's history of conventions, which the form lists. The address, public
// page and coordinate fields are the add dialog's (site-form-dialog.tsx).
import { Select, SimpleGrid, Text, Textarea, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { CADENA_MAX, SITE_NOM_MAX, siteUpdateSchema, type SiteDetail } from '../../../shared/schemas/sites';
import { formatParisDate, parisDayValue } from '../../../shared/dates';
import { Dialog } from '../../components/dialog';
import { DialogForm } from '../../components/form-dialog';
import { QueryState } from '../../components/query-state';
import { useFormSave, useZodForm } from '../../lib/form';
import { SiteDateInput } from './site-date-input';
import { AddressFields, PublicFields, coordinateText, useReferenceOptions, type Position } from './site-form-dialog';
import { siteQuery, sitesKeys, updateSite } from './sites.api';

export function EditSiteDialog({ siteId, onClose }: { siteId: number | null; onClose: () => void }) {
  const site = useQuery({ ...siteQuery(siteId ?? 0), enabled: siteId !== null });
  return (
    <Dialog opened={siteId !== null} onClose={onClose} title="Modifier Site" size="xl">
      {siteId !== null && (
        <QueryState queries={[site]} detail="Le site n'a pas pu être chargé.">
          {(s) => <EditSiteForm key={s.id} site={s} onDone={onClose} />}
        </QueryState>
      )}
    </Dialog>
  );
}

function EditSiteForm({ site, onDone }: { site: SiteDetail; onDone: () => void }) {
  const refs = useReferenceOptions();
  const form = useZodForm(siteUpdateSchema, {
    initialValues: {
      statut: String(site.idStatut),
      nom: site.nom ?? '',
      adresse: site.adresse,
      numero: site.numero ?? '',
      complement: site.complement ?? '',
      type: String(site.idType),
      cadena: site.cadena ?? '',
      observations: site.observations ?? '',
      dateConvention: parisDayValue(site.dateConvention),
      dateImplantation: parisDayValue(site.dateImplantation),
      dateInauguration: parisDayValue(site.dateInauguration),
      horaires: site.horaires ?? '',
      consignes: site.consignes ?? '',
      latitude: coordinateText(site.latitude),
      longitude: coordinateText(site.longitude),
      openData: site.openData ?? true,
    } as Record<string, unknown>,
  });
  const save = useFormSave(form, { serverMessage: true, call: (payload) => updateSite(site.id, payload), success: 'Site modifié', invalidate: [sitesKeys.all], onDone });

  if (refs.state) return refs.state;
  return (
    <DialogForm save={save} onCancel={onDone}>
      <Text size="sm">
        Code : <strong>{site.code}</strong> · {site.ville} ({site.cp})
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        <Select label="Statut" withAsterisk data={refs.statutOptions} allowDeselect={false} {...form.getInputProps('statut')} />
        <Select label="Type de site" withAsterisk data={refs.typeSiteOptions} allowDeselect={false} {...form.getInputProps('type')} />
        <TextInput label="Nom" maxLength={SITE_NOM_MAX} description={`${SITE_NOM_MAX} caractères au plus`} {...form.getInputProps('nom')} />
        <TextInput label="Cadena" maxLength={CADENA_MAX} description={`Code, ${CADENA_MAX} caractères au plus`} {...form.getInputProps('cadena')} />
        <AddressFields ville={site.ville} inputProps={(path) => form.getInputProps(path)} />
        <TextInput label="Précisions" maxLength={200} {...form.getInputProps('complement')} />
      </SimpleGrid>
      <Textarea label="Observations" autosize minRows={2} maxLength={2000} {...form.getInputProps('observations')} />
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
        <SiteDateInput
          label="Date Convention"
          description={site.dateConventions.length > 0 ? 'Une nouvelle date est ajoutée à l’historique' : undefined}
          {...form.getInputProps('dateConvention')}
        />
        <SiteDateInput label="Date Implantation" {...form.getInputProps('dateImplantation')} />
        <SiteDateInput label="Date inauguration" {...form.getInputProps('dateInauguration')} />
      </SimpleGrid>
      {site.dateConventions.length > 0 && (
        <Text size="sm" c="dimmed">
          Historique des conventions : {site.dateConventions.map(formatParisDate).join(', ')}
        </Text>
      )}
      <PublicFields
        inputProps={(path, options) => form.getInputProps(path, options)}
        position={form.values as Position}
        saved={{ latitude: coordinateText(site.latitude), longitude: coordinateText(site.longitude) }}
        source={site.coordonneesSource}
        code={site.code}
      />
    </DialogForm>
  );
}
