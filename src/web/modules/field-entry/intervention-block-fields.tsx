// The inputs of ONE action block of a field entry (the site sheet): the cell, the action
// allowed on that cell's type, the value the action asks for, the destination of a transfer and
// the observations. Shared by the site sheet (one per block) and the interventions edit dialog
// (one block), so both ask the same questions with the same labels. Only Mantine inputs and
// zod-free modules are imported: the site sheet's JavaScript budget is tight.
import { NativeSelect, Stack, Textarea, TextInput } from '@mantine/core';
import type { TypeAction, TypeActionConstante } from '../../../shared/schemas/reference';
import {
  OBSERVATIONS_MAX,
  TEXT_VALUE_MAX,
  VALUE_LITRES_MAX,
  VALUE_TEMPERATURE_MAX,
  VALUE_TEMPERATURE_MIN,
} from '../../../shared/schemas/intervention-rules';
import { cellLabel } from '../../lib/labels';
import {
  OBSERVATIONS_REQUIRED_ACTION,
  TRANSFER_DESTINATION_CELL_TYPE,
  valueKindOf,
  type BlockFormValues,
  type ValueKind,
} from './site-sheet-form';

/** What the block needs to know of a cell (SiteInfos['siteComposteurs'][number] fits). */
export interface BlockCell {
  id: number;
  numero: number;
  /** Cell type id (typeBac). */
  typeBac: number;
  libelleTypeBac: string;
}

/** The block fields that can carry an error under their input. */
export type BlockField = 'composteur' | 'action' | 'valeur' | 'bacDestination' | 'observations';

export interface InterventionBlockFieldsProps {
  /** The block as the inputs hold it (selects give strings). */
  block: BlockFormValues;
  /** Cells the block may choose from (the site's active cells), in display order. */
  cells: readonly BlockCell[];
  typeActions: readonly TypeAction[];
  constantes: readonly TypeActionConstante[];
  /** The French error to show under a field's input, if any. */
  errorOf: (field: BlockField) => string | undefined;
  /** Called with the fields that changed; a new cell clears action, value and destination, a new action clears value and destination. */
  onChange: (patch: Partial<BlockFormValues>) => void;
}

interface Option {
  value: string;
  label: string;
  disabled?: boolean;
}

/**
 * Native selects: the phone's own picker, large and familiar, and no dropdown code to load
 * (the contract asks for selectors, not for a searchable list). The first, empty entry says what to
 * choose and cannot be chosen back.
 */
function withPlaceholder(text: string, options: Option[]): Option[] {
  return [{ value: '', label: text, disabled: true }, ...options];
}

const orNull = (value: string): string | null => (value === '' ? null : value);

export function InterventionBlockFields({ block, cells, typeActions, constantes, errorOf, onChange }: InterventionBlockFieldsProps) {
  const cell = cells.find((c) => String(c.id) === block.composteur) ?? null;
  const action = typeActions.find((a) => String(a.id) === block.action) ?? null;
  const kind = valueKindOf(block.action, typeActions);
  return (
    <Stack gap="sm">
      <NativeSelect
        label="Choix de la cellule"
        withAsterisk
        data={withPlaceholder(
          'Choisir une cellule',
          cells.map((c) => ({ value: String(c.id), label: cellLabel(c) })),
        )}
        value={block.composteur ?? ''}
        error={errorOf('composteur')}
        // Another cell: the action and its value may no longer apply.
        onChange={(e) => onChange({ composteur: orNull(e.currentTarget.value), action: null, valeur: null, bacDestination: null })}
      />
      <NativeSelect
        label="Quelle action"
        withAsterisk
        disabled={!cell}
        data={withPlaceholder(
          cell ? 'Choisir une action' : 'Choisissez d’abord une cellule',
          typeActions.map((a) => ({ value: String(a.id), label: a.libelle, disabled: !cell || !a.typeBac.includes(cell.typeBac) })),
        )}
        value={block.action ?? ''}
        error={errorOf('action')}
        onChange={(e) => onChange({ action: orNull(e.currentTarget.value), valeur: null, bacDestination: null })}
      />
      <ValueInput
        kind={kind}
        action={action}
        constantes={constantes}
        value={block.valeur}
        error={errorOf('valeur')}
        onValue={(valeur) => onChange({ valeur })}
      />
      {kind === 'transfer' && (
        <NativeSelect
          label="Cellule de destination"
          withAsterisk
          data={withPlaceholder(
            'Choisir une cellule de maturation',
            cells
              .filter((c) => c.typeBac === TRANSFER_DESTINATION_CELL_TYPE && String(c.id) !== block.composteur)
              .map((c) => ({ value: String(c.id), label: cellLabel(c) })),
          )}
          value={block.bacDestination ?? ''}
          error={errorOf('bacDestination')}
          onChange={(e) => onChange({ bacDestination: orNull(e.currentTarget.value) })}
        />
      )}
      <Textarea
        label="Observations (si besoin)"
        withAsterisk={block.action === String(OBSERVATIONS_REQUIRED_ACTION)}
        rows={3}
        maxLength={OBSERVATIONS_MAX}
        value={block.observations}
        error={errorOf('observations')}
        onChange={(e) => onChange({ observations: e.currentTarget.value })}
      />
    </Stack>
  );
}

export interface ValueInputProps {
  kind: ValueKind;
  action: TypeAction | null;
  constantes: readonly TypeActionConstante[];
  value: string | number | null;
  error: string | undefined;
  onValue: (value: string | number | null) => void;
}

/** The value input of the chosen action (docs/domain.md, actions and their values). */
export function ValueInput({ kind, action, constantes, value, error, onValue }: ValueInputProps) {
  switch (kind) {
    case 'litres':
    case 'transfer':
      // A plain text input with the phone's number keyboard: the shared validation reads it
      // (whole litres, 0 to 10 000) and says what is wrong in French.
      return (
        <TextInput
          label={kind === 'transfer' ? 'Quantité transférée (litres)' : 'Quantité (litres)'}
          withAsterisk
          inputMode="numeric"
          autoComplete="off"
          description={`De 0 à ${VALUE_LITRES_MAX.toLocaleString('fr-FR')} litres`}
          value={value === null ? '' : String(value)}
          onChange={(e) => onValue(e.currentTarget.value)}
          error={error}
        />
      );
    case 'temperature':
      return (
        <TextInput
          label="Température (°C)"
          withAsterisk
          inputMode="decimal"
          autoComplete="off"
          description={`De ${VALUE_TEMPERATURE_MIN} à ${VALUE_TEMPERATURE_MAX} °C, par exemple 54,5`}
          value={value === null ? '' : String(value).replace('.', ',')}
          onChange={(e) => onValue(e.currentTarget.value)}
          error={error}
        />
      );
    case 'constant':
      return (
        <NativeSelect
          label={action?.libelle ?? 'Valeur'}
          withAsterisk
          data={withPlaceholder(
            'Choisir',
            constantes.filter((c) => c.idAction === action?.id).map((c) => ({ value: String(c.idConstante), label: c.constante })),
          )}
          value={value === null ? '' : String(value)}
          onChange={(e) => onValue(orNull(e.currentTarget.value))}
          error={error}
        />
      );
    case 'text':
      return (
        <TextInput
          label="Précisions"
          withAsterisk
          maxLength={TEXT_VALUE_MAX}
          value={value === null ? '' : String(value)}
          onChange={(e) => onValue(e.currentTarget.value)}
          error={error}
        />
      );
    default:
      return null;
  }
}
