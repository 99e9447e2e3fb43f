// State of the site sheet form: the blocks, the date and the errors under the fields (keyed by
// form path, values.0.valeur). Small on purpose: the field screen loads no form library.
import { useCallback, useState } from 'react';
import { emptyBlock, type BlockFormValues, type SheetFormValues } from './site-sheet-form';

export type SheetErrors = Record<string, string>;

export const MAX_BLOCKS = 20;

function without(errors: SheetErrors, drop: (key: string) => boolean): SheetErrors {
  const out: SheetErrors = {};
  for (const [k, v] of Object.entries(errors)) if (!drop(k)) out[k] = v;
  return out;
}

export function useSheetForm(initialValues: SheetFormValues, initialErrors: SheetErrors = {}) {
  const [values, setValues] = useState(initialValues);
  const [errors, setErrors] = useState(initialErrors);

  /** Changes fields of one block; their errors go away (the user is fixing them). */
  const updateBlock = useCallback((index: number, patch: Partial<BlockFormValues>) => {
    setValues((v) => ({ ...v, values: v.values.map((b, i) => (i === index ? { ...b, ...patch } : b)) }));
    const touched = new Set(Object.keys(patch).map((field) => `values.${index}.${field}`));
    setErrors((e) => without(e, (k) => touched.has(k)));
  }, []);

  const setDate = useCallback((date: string | null) => {
    setValues((v) => ({ ...v, date }));
    setErrors((e) => without(e, (k) => k === 'date'));
  }, []);

  const addBlock = useCallback(() => {
    setValues((v) => (v.values.length >= MAX_BLOCKS ? v : { ...v, values: [...v.values, emptyBlock()] }));
  }, []);

  const removeLastBlock = useCallback(() => {
    setValues((v) => {
      if (v.values.length <= 1) return v;
      const last = v.values.length - 1;
      setErrors((e) => without(e, (k) => k.startsWith(`values.${last}.`)));
      return { ...v, values: v.values.slice(0, last) };
    });
  }, []);

  return { values, errors, setErrors, updateBlock, setDate, addBlock, removeLastBlock };
}
