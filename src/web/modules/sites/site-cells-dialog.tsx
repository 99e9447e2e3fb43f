// The cells of a status 1 site: the list (deactivated cells in grey, 'Désactivé - ' first),
// a 'Désactiver' switch per cell, a nested dialog to edit one cell, and new cells to add.
// Cells are never deleted: interventions point to them.
import { useState } from 'react';
import { ActionIcon, Button, Divider, Group, NumberInput, Paper, Select, Stack, Switch, Text, Title, Tooltip } from '@mantine/core';
import { Dialog } from '../../components/dialog';
import { IconPencil } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { NUMERO_MAX, NUMERO_MIN, cellsAddSchema, cellUpdateSchema, type SiteCell } from '../../../shared/schemas/sites';
import { DialogForm, ErrorBanner } from '../../components/form-dialog';
import { QueryState } from '../../components/query-state';
import { useFormSave, useSaveAction, useZodForm } from '../../lib/form';
import { notifyError, notifySuccess } from '../../lib/notify';
import { readFailure } from '../../lib/api';
import { CellRows, composterTypeLabel, newCellRow, nextFreeNumero, type CellRowValues } from './site-form-dialog';
import { addCells, cellTypesQuery, siteCellsQuery, sitesKeys, composterTypesQuery, updateCell } from './sites.api';

/** The contract's message when a cell update fails. */
export const CELL_UPDATE_FAILED = 'Veuillez vérifier votre saisie';
/** The contract's message when adding cells fails (sic, without the space). */
export const CELLS_ADD_FAILED = 'Veuillezvérifier votre saisie';

export function cellText(c: SiteCell) {
  const text = `Cellule n°${c.numero} - ${c.libelle} - ${composterTypeLabel(c)}`;
  return c.actif ? text : `Désactivé - ${text}`;
}

export function SiteCellsDialog({ site, onClose }: { site: { id: number; code: string; nom: string | null } | null; onClose: () => void }) {
  const cells = useQuery({ ...siteCellsQuery(site?.id ?? 0), enabled: site !== null });
  const [editing, setEditing] = useState<SiteCell | null>(null);
  return (
    <>
      <Dialog opened={site !== null} onClose={onClose} title={site ? `Composteurs du site ${site.nom ? `${site.nom} - ` : ''}${site.code}` : ''} size="xl">
        {site !== null && (
          <QueryState queries={[cells]} detail="Les composteurs n'ont pas pu être chargés.">
            {(list) => (
              <Stack gap="sm">
                <CellList cells={list} onEdit={setEditing} />
                <Divider />
                <AddCellsForm key={site.id} siteId={site.id} cells={list} />
              </Stack>
            )}
          </QueryState>
        )}
      </Dialog>
      <EditCellDialog cell={editing} onClose={() => setEditing(null)} />
    </>
  );
}

function CellList({ cells, onEdit }: { cells: SiteCell[]; onEdit: (c: SiteCell) => void }) {
  const queryClient = useQueryClient();
  const [pending, setPending] = useState<number | null>(null);
  const toggle = async (c: SiteCell, deactivate: boolean) => {
    setPending(c.id);
    try {
      await updateCell(c.id, { composteur: c.composteur, typeBac: c.typeBac, numero: c.numero, actif: !deactivate });
      notifySuccess('Composteur du site modifié');
      await queryClient.invalidateQueries({ queryKey: sitesKeys.all });
    } catch (e) {
      const failure = await readFailure(e);
      if (failure.status === 401 || failure.status === 403) return;
      const detail = failure.errors.map((x) => x.error).join(' ; ');
      notifyError(detail ? `${CELL_UPDATE_FAILED} : ${detail}` : CELL_UPDATE_FAILED);
    } finally {
      setPending(null);
    }
  };
  if (cells.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        Aucun composteur sur ce site.
      </Text>
    );
  }
  return (
    <Stack gap={6} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label="Composteurs du site">
      {cells.map((c) => (
        <Paper key={c.id} component="li" withBorder px="sm" py={6} bg={c.actif ? undefined : 'gray.1'}>
          <Group justify="space-between" wrap="nowrap">
            <Text size="sm" c={c.actif ? undefined : 'dimmed'}>
              {cellText(c)}
            </Text>
            <Group gap="sm" wrap="nowrap">
              <Switch
                label="Désactiver"
                checked={!c.actif}
                disabled={pending === c.id}
                onChange={(e) => void toggle(c, e.currentTarget.checked)}
                aria-label={`Désactiver la cellule n°${c.numero}`}
              />
              <Tooltip label="Modifier">
                <ActionIcon variant="subtle" aria-label={`Modifier la cellule n°${c.numero}`} onClick={() => onEdit(c)}>
                  <IconPencil size={18} aria-hidden />
                </ActionIcon>
              </Tooltip>
            </Group>
          </Group>
        </Paper>
      ))}
    </Stack>
  );
}

function AddCellsForm({ siteId, cells }: { siteId: number; cells: SiteCell[] }) {
  const queryClient = useQueryClient();
  const form = useZodForm(cellsAddSchema, { initialValues: { composteurs: [] as CellRowValues[] } });
  const save = useSaveAction({ invalid: CELLS_ADD_FAILED, serverMessage: true, setServerErrors: form.setServerErrors });
  const taken = cells.filter((c) => c.actif).map((c) => c.numero);
  const submit = form.onSubmit(
    (payload) =>
      save.run(async () => {
        await addCells(siteId, payload);
        notifySuccess('Composteur(s) Site ajouté(s)');
        form.setValues({ composteurs: [] });
        await queryClient.invalidateQueries({ queryKey: sitesKeys.all });
      }),
    save.showInvalid,
  );
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <Title order={3} size="h5">
          Ajouter des composteurs
        </Title>
        <ErrorBanner message={save.banner} />
        <CellRows
          rows={form.values.composteurs}
          pathPrefix="composteurs"
          getInputProps={(path) => form.getInputProps(path)}
          onAdd={() => form.insertListItem('composteurs', newCellRow(nextFreeNumero(form.values.composteurs, taken)))}
          onRemove={(i) => form.removeListItem('composteurs', i)}
        />
        {form.values.composteurs.length > 0 && (
          <Group justify="flex-end">
            <Button type="submit" loading={save.saving}>
              Enregistrer les composteurs
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}

function EditCellDialog({ cell, onClose }: { cell: SiteCell | null; onClose: () => void }) {
  return (
    <Dialog opened={cell !== null} onClose={onClose} title={cell ? `Modifier la cellule n°${cell.numero}` : ''} size="md">
      {cell && <EditCellForm key={cell.id} cell={cell} onDone={onClose} />}
    </Dialog>
  );
}

function EditCellForm({ cell, onDone }: { cell: SiteCell; onDone: () => void }) {
  const typeComposteurs = useQuery(composterTypesQuery());
  const cellTypes = useQuery(cellTypesQuery());
  const form = useZodForm(cellUpdateSchema, {
    initialValues: { composteur: String(cell.composteur) as string | null, typeBac: String(cell.typeBac) as string | null, numero: cell.numero as number | string, actif: cell.actif },
  });
  const save = useFormSave(form, { invalid: CELL_UPDATE_FAILED, serverMessage: true, call: (payload) => updateCell(cell.id, payload), success: 'Composteur du site modifié', invalidate: [sitesKeys.all], onDone });  return (
    <DialogForm save={save} onCancel={onDone}>
      <Select
        label="Composteur"
        withAsterisk
        data={(typeComposteurs.data ?? []).map((c) => ({ value: String(c.id), label: composterTypeLabel(c) }))}
        allowDeselect={false}
        comboboxProps={{ withinPortal: false }}
        {...form.getInputProps('composteur')}
      />
      <Select
        label="Usage"
        withAsterisk
        data={(cellTypes.data ?? []).map((t) => ({ value: String(t.id), label: t.libelle }))}
        allowDeselect={false}
        disabled={cell.aInterventions}
        description={cell.aInterventions ? 'Cellule avec des interventions : son usage ne peut plus changer' : undefined}
        comboboxProps={{ withinPortal: false }}
        {...form.getInputProps('typeBac')}
      />
      <NumberInput label="Numéro" withAsterisk min={NUMERO_MIN} max={NUMERO_MAX} allowDecimal={false} allowNegative={false} {...form.getInputProps('numero')} />
      <Switch
        label="Désactiver"
        checked={!form.values.actif}
        onChange={(e) => form.setFieldValue('actif', !e.currentTarget.checked)}
        error={form.errors.actif}
      />
    </DialogForm>
  );
}
