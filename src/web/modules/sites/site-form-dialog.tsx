// The add dialog of a site, and the parts the edit dialog (edit-site-dialog.tsx) shares with it.
// The add dialog starts on status 1 (cells and the convention, implantation and inauguration
// dates); status 2 swaps them for the requester, the request date, the planned period and year
// and the observations. Both dialogs have the site's public page texts (opening hours, what to
// bring), its coordinates (taken from the imported addresses when left empty, shown and typed
// with a decimal comma or point) and its open-data switch.
import { ActionIcon, Anchor, Autocomplete, Button, Fieldset, Group, NumberInput, Select, SimpleGrid, Stack, Switch, Text, Textarea, TextInput } from '@mantine/core';
import { Dialog } from '../../components/dialog';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import type { GetInputPropsReturnType } from '@mantine/form';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { formatNom, formatPrenom, formatTel } from '../../../shared/schemas/account';
import {
  anneeRange,
  CADENA_MAX,
  CIVILITES,
  CONSIGNES_MAX,
  HORAIRES_MAX,
  FONCTIONS,
  NUMERO_MAX,
  NUMERO_MIN,
  PERIODES,
  SITE_NOM_MAX,
  SITE_STATUT,
  siteAddSchema,
} from '../../../shared/schemas/sites';
import { DialogForm } from '../../components/form-dialog';
import { QueryState } from '../../components/query-state';
import { useFormSave, useZodForm } from '../../lib/form';
import { SiteDateInput } from './site-date-input';
import {
  addSite,
  cellTypesQuery,
  ruesQuery,
  sitesKeys,
  siteStatutsQuery,
  composterTypesQuery,
  typeSitesQuery,
  villesQuery,
} from './sites.api';

export interface CellRowValues {
  key: string;
  composteur: string | null;
  typeBac: string | null;
  numero: number | string;
}

interface RequesterValues {
  date: string | null;
  civilite: string | null;
  nom: string;
  prenom: string;
  fonction: string | null;
  precisions: string;
  telephone: string;
  telephone2: string;
  email: string;
  periodeImplantation: string | null;
  anneeImplantation: string | null;
}

interface SiteFormValues extends Record<string, unknown> {
  statut: string;
  nom: string;
  ville: string;
  cp: string;
  adresse: string;
  numero: string;
  complement: string;
  type: string | null;
  cadena: string;
  observations: string;
  dateConvention: string | null;
  dateImplantation: string | null;
  dateInauguration: string | null;
  composteurs: CellRowValues[];
  demandeur: RequesterValues;
  horaires: string;
  consignes: string;
  latitude: string;
  longitude: string;
  openData: boolean;
}

let cellKey = 0;
export const newCellRow = (numero: number | string = ''): CellRowValues => ({ key: `cell-${++cellKey}`, composteur: null, typeBac: null, numero });

/** The first number from 0 to 20 not used by `rows` nor `taken`, or '' when none is left. */
export function nextFreeNumero(rows: { numero: number | string }[], taken: Iterable<number> = []): number | '' {
  const used = new Set<number>([...taken, ...rows.map((r) => Number(r.numero)).filter((n) => Number.isInteger(n))]);
  for (let n = Math.max(1, NUMERO_MIN); n <= NUMERO_MAX; n++) if (!used.has(n)) return n;
  return used.has(0) ? '' : 0;
}

const emptyRequester = (): RequesterValues => ({
  date: null,
  civilite: null,
  nom: '',
  prenom: '',
  fonction: null,
  precisions: '',
  telephone: '',
  telephone2: '',
  email: '',
  periodeImplantation: null,
  anneeImplantation: null,
});

/** The add payload keeps only the section of the chosen status. */
const addFormSchema = z.preprocess((raw) => {
  const v = raw as SiteFormValues;
  if (Number(v.statut) === SITE_STATUT.demande) return { ...v, composteurs: [], dateConvention: null, dateImplantation: null, dateInauguration: null };
  return { ...v, demandeur: null, observations: null };
}, siteAddSchema);

/** A composter type as the cell inputs offer it: '400 L - Bac bois'. */
export const composterTypeLabel = (c: { volume: number; precisions: string }) => `${c.volume} L - ${c.precisions}`;

export function useReferenceOptions() {
  const villes = useQuery(villesQuery());
  const typeSites = useQuery(typeSitesQuery());
  const statuts = useQuery(siteStatutsQuery());
  return {
    villes,
    villeOptions: (villes.data ?? []).map((v) => ({ value: `${v.nom}|${v.cp}`, label: `${v.nom} (${v.cp})` })),
    typeSiteOptions: (typeSites.data ?? []).map((t) => ({ value: String(t.id), label: `${t.libelle} (${t.code})` })),
    statutOptions: (statuts.data ?? []).map((s) => ({ value: String(s.id), label: s.libelle })),
    /** The lists' wait or failure, or nothing once all three are loaded. */
    state: villes.data && typeSites.data && statuts.data ? null : <QueryState queries={[villes, typeSites, statuts]} detail="Les listes de référence n'ont pas pu être chargées." />,
  };
}

/** The cells of a new site, or the cells added to a site (cells dialog). */
export function CellRows({
  rows,
  pathPrefix,
  getInputProps,
  onAdd,
  onRemove,
}: {
  rows: CellRowValues[];
  pathPrefix: string;
  getInputProps: (path: string) => GetInputPropsReturnType;
  onAdd: () => void;
  onRemove: (index: number) => void;
}) {
  const typeComposteurs = useQuery(composterTypesQuery());
  const cellTypes = useQuery(cellTypesQuery());
  const composterTypeOptions = (typeComposteurs.data ?? []).map((c) => ({ value: String(c.id), label: composterTypeLabel(c) }));
  const cellTypeOptions = (cellTypes.data ?? []).map((t) => ({ value: String(t.id), label: t.libelle }));
  return (
    <Stack gap="xs">
      {rows.length === 0 && (
        <Text size="sm" c="dimmed">
          Aucun composteur
        </Text>
      )}
      {rows.map((row, i) => (
        <Group key={row.key} align="flex-start" wrap="nowrap" gap="xs">
          <Select
            label="Composteur"
            withAsterisk
            placeholder={typeComposteurs.isPending ? 'Chargement…' : 'Choisir'}
            data={composterTypeOptions}
            allowDeselect={false}
            style={{ flex: 2 }}
            {...getInputProps(`${pathPrefix}.${i}.composteur`)}
          />
          <Select
            label="Usage"
            withAsterisk
            placeholder={cellTypes.isPending ? 'Chargement…' : 'Choisir'}
            data={cellTypeOptions}
            allowDeselect={false}
            style={{ flex: 1 }}
            {...getInputProps(`${pathPrefix}.${i}.typeBac`)}
          />
          <NumberInput label="Numéro" withAsterisk min={NUMERO_MIN} max={NUMERO_MAX} allowDecimal={false} allowNegative={false} w={90} {...getInputProps(`${pathPrefix}.${i}.numero`)} />
          <ActionIcon variant="subtle" color="red" mt={26} aria-label={`Retirer la cellule ${i + 1}`} onClick={() => onRemove(i)}>
            <IconTrash size={18} aria-hidden />
          </ActionIcon>
        </Group>
      ))}
      <Group>
        <Button variant="light" size="xs" leftSection={<IconPlus size={16} aria-hidden />} onClick={onAdd} disabled={rows.length > NUMERO_MAX}>
          Ajouter un composteur
        </Button>
      </Group>
    </Stack>
  );
}

export function AddressFields({ ville, inputProps }: { ville: string; inputProps: (path: string) => GetInputPropsReturnType }) {
  const rues = useQuery(ruesQuery(ville));
  return (
    <>
      <TextInput label="Numéro" maxLength={20} {...inputProps('numero')} />
      <Autocomplete
        label="Adresse"
        withAsterisk
        placeholder={ville ? 'Rue, allée, place…' : "Choisissez d'abord la ville"}
        data={[...new Set((rues.data ?? []).map((r) => r.nom))]}
        limit={30}
        maxLength={200}
        {...inputProps('adresse')}
      />
    </>
  );
}

/** A stored coordinate as the form shows it, with the French decimal comma: 48.3904 -> '48,3904'. */
export const coordinateText = (v: number | null | undefined) => (v == null ? '' : String(v).replace('.', ','));

/** A typed coordinate as the schema reads it (comma or point), to tell whether it was changed. */
const coordinateValue = (text: string) => (text.trim() === '' ? null : Number(text.trim().replace(',', '.')));

export type Position = { latitude: string; longitude: string };

/**
 * What the note under the coordinates says: where the shown position comes from, and how to
 * change it. `saved` are the values the form opened with, `source` where they came from.
 */
export function positionNote(source: 'ban' | 'saisie' | null | undefined, saved: Position, current: Position): string {
  if (current.latitude.trim() === '' && current.longitude.trim() === '') {
    return "Laissées vides, les coordonnées sont reprises de l'adresse quand la rue et le numéro figurent dans les adresses importées.";
  }
  const unchanged = coordinateValue(current.latitude) === coordinateValue(saved.latitude) && coordinateValue(current.longitude) === coordinateValue(saved.longitude);
  if (unchanged && source === 'ban') {
    return "Position estimée depuis l'adresse. Pour la corriger, saisissez d'autres valeurs : elles seront gardées telles quelles. Videz les deux champs pour revenir à l'adresse.";
  }
  if (unchanged && source === 'saisie') return "Position saisie : elle est gardée même si l'adresse change. Videz les deux champs pour revenir à l'adresse.";
  return "Position saisie : elle sera gardée telle quelle, même si l'adresse change.";
}

/** What the site's public page and the open-data files show, and where the site stands. */
export function PublicFields({
  inputProps,
  position,
  saved = { latitude: '', longitude: '' },
  source,
  code,
}: {
  inputProps: (path: string, options?: { type?: 'checkbox' }) => GetInputPropsReturnType;
  position: Position;
  saved?: Position;
  source?: 'ban' | 'saisie' | null;
  code?: string;
}) {
  const publicText = 'Affiché sur la page publique du site : ni nom, ni adresse mail, ni téléphone.';
  return (
    <Fieldset legend="Page publique et open data">
      <Stack gap="sm">
        <Textarea label="Horaires" description={publicText} autosize minRows={2} maxLength={HORAIRES_MAX} {...inputProps('horaires')} />
        <Textarea label="Consignes" description={`Ce que les usagers peuvent déposer. ${publicText}`} autosize minRows={2} maxLength={CONSIGNES_MAX} {...inputProps('consignes')} />
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextInput label="Latitude" inputMode="decimal" placeholder="48,3904" {...inputProps('latitude')} />
          <TextInput label="Longitude" inputMode="decimal" placeholder="-4,4861" {...inputProps('longitude')} />
        </SimpleGrid>
        <Text size="xs" c="dimmed">
          {positionNote(source, saved, position)}
        </Text>
        <Switch label="Publier en open data" {...inputProps('openData', { type: 'checkbox' })} />
        {code && (
          <Text size="sm">
            Page publique :{' '}
            <Anchor href={`/s/${encodeURIComponent(code)}`} target="_blank" rel="noopener">
              /s/{code}
            </Anchor>
          </Text>
        )}
      </Stack>
    </Fieldset>
  );
}

export function AddSiteDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  return (
    <Dialog opened={opened} onClose={onClose} title="Ajouter un site" size="xl">
      {opened && <AddSiteForm onDone={onClose} />}
    </Dialog>
  );
}

function AddSiteForm({ onDone }: { onDone: () => void }) {
  const refs = useReferenceOptions();
  const form = useZodForm(addFormSchema, {
    initialValues: {
      statut: String(SITE_STATUT.actif),
      nom: '',
      ville: '',
      cp: '',
      adresse: '',
      numero: '',
      complement: '',
      type: null,
      cadena: '',
      observations: '',
      dateConvention: null,
      dateImplantation: null,
      dateInauguration: null,
      composteurs: [],
      demandeur: emptyRequester(),
      horaires: '',
      consignes: '',
      latitude: '',
      longitude: '',
      openData: true,
    } as SiteFormValues,
  });
  const save = useFormSave(form, { serverMessage: true, call: addSite, success: 'Site ajouté', invalidate: [sitesKeys.list], onDone });
  const isRequest = Number(form.values.statut) === SITE_STATUT.demande;
  const years = anneeRange();
  const yearOptions = Array.from({ length: years.max - years.min + 1 }, (_, i) => String(years.min + i));

  if (refs.state) return refs.state;

  return (
    <DialogForm save={save} onCancel={onDone}>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        <Select label="Statut" withAsterisk data={refs.statutOptions} allowDeselect={false} {...form.getInputProps('statut')} />
        <Select label="Type de site" withAsterisk placeholder="Choisir un type" data={refs.typeSiteOptions} allowDeselect={false} {...form.getInputProps('type')} />
        <TextInput label="Nom" maxLength={SITE_NOM_MAX} description={`${SITE_NOM_MAX} caractères au plus`} {...form.getInputProps('nom')} />
        <TextInput label="Cadena" maxLength={CADENA_MAX} description={`Code, ${CADENA_MAX} caractères au plus`} {...form.getInputProps('cadena')} />
        <Select
          label="Ville"
          withAsterisk
          searchable
          placeholder="Choisir une ville"
          nothingFoundMessage="Aucun résultat"
          data={refs.villeOptions}
          value={form.values.ville ? `${form.values.ville}|${form.values.cp}` : null}
          error={form.errors.ville}
          onChange={(value) => {
            const [nom, cp] = value ? value.split('|') : ['', ''];
            form.setFieldValue('ville', nom);
            form.setFieldValue('cp', cp);
            form.setFieldValue('adresse', '');
          }}
        />
        <TextInput label="Code postal" readOnly value={form.values.cp} tabIndex={-1} />
        <AddressFields ville={form.values.ville} inputProps={(path) => form.getInputProps(path)} />
        <TextInput label="Précisions" maxLength={200} {...form.getInputProps('complement')} />
      </SimpleGrid>

      {isRequest ? (
        <RequesterSection form={form} yearOptions={yearOptions} />
      ) : (
        <>
          <Fieldset legend="Composteurs">
            <CellRows
              rows={form.values.composteurs}
              pathPrefix="composteurs"
              getInputProps={(path) => form.getInputProps(path)}
              onAdd={() => form.insertListItem('composteurs', newCellRow(nextFreeNumero(form.values.composteurs)))}
              onRemove={(i) => form.removeListItem('composteurs', i)}
            />
          </Fieldset>
          <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
            <SiteDateInput label="Date Convention" {...form.getInputProps('dateConvention')} />
            <SiteDateInput label="Date Implantation" {...form.getInputProps('dateImplantation')} />
            <SiteDateInput label="Date inauguration" {...form.getInputProps('dateInauguration')} />
          </SimpleGrid>
          <PublicFields inputProps={(path, options) => form.getInputProps(path, options)} position={form.values} />
        </>
      )}
    </DialogForm>
  );
}

function RequesterSection({
  form,
  yearOptions,
}: {
  form: ReturnType<typeof useZodForm<typeof addFormSchema, SiteFormValues>>;
  yearOptions: string[];
}) {
  const d = form.values.demandeur;
  return (
    <>
      <Fieldset legend="Demandeur">
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <Select label="Civilité" withAsterisk placeholder="Choisir" data={[...CIVILITES]} allowDeselect={false} {...form.getInputProps('demandeur.civilite')} />
          <Select
            label="Fonction"
            withAsterisk
            placeholder="Choisir"
            data={[...FONCTIONS]}
            allowDeselect={false}
            {...form.getInputProps('demandeur.fonction')}
            onChange={(value) => {
              form.setFieldValue('demandeur.fonction', value);
              if (value !== 'Autre') form.setFieldValue('demandeur.precisions', '');
            }}
          />
          <TextInput
            label="Nom"
            withAsterisk
            maxLength={100}
            {...form.getInputProps('demandeur.nom')}
            onChange={(e) => form.setFieldValue('demandeur.nom', formatNom(e.currentTarget.value))}
          />
          <TextInput
            label="Prénom"
            withAsterisk
            maxLength={100}
            {...form.getInputProps('demandeur.prenom')}
            onChange={(e) => form.setFieldValue('demandeur.prenom', formatPrenom(e.currentTarget.value))}
          />
          {d.fonction === 'Autre' && <TextInput label="Précisions sur la fonction" withAsterisk maxLength={100} {...form.getInputProps('demandeur.precisions')} />}
          <TextInput
            label="Téléphone"
            withAsterisk
            type="tel"
            inputMode="numeric"
            {...form.getInputProps('demandeur.telephone')}
            onChange={(e) => form.setFieldValue('demandeur.telephone', formatTel(e.currentTarget.value))}
          />
          <TextInput
            label="Téléphone 2"
            type="tel"
            inputMode="numeric"
            {...form.getInputProps('demandeur.telephone2')}
            onChange={(e) => form.setFieldValue('demandeur.telephone2', formatTel(e.currentTarget.value))}
          />
          <TextInput label="Adresse mail" type="email" {...form.getInputProps('demandeur.email')} />
          <SiteDateInput label="Date de la demande" {...form.getInputProps('demandeur.date')} />
          <Select label="Période d'implantation" placeholder="Aucune" clearable data={[...PERIODES]} {...form.getInputProps('demandeur.periodeImplantation')} />
          <Select label="Année d'implantation" placeholder="Aucune" clearable searchable data={yearOptions} {...form.getInputProps('demandeur.anneeImplantation')} />
        </SimpleGrid>
      </Fieldset>
      <Textarea label="Observations" autosize minRows={2} maxLength={2000} {...form.getInputProps('observations')} />
    </>
  );
}
