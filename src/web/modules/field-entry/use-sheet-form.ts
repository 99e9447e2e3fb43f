// State of the site sheet form: the blocks, the date, each block's photos and the errors under
// the fields (keyed by form path, values.0.valeur). Small on purpose: the field screen loads no
// form library.
import { useCallback, useState } from 'react';
import { emptyBlock, type BlockFormValues, type SheetFormValues } from './site-sheet-form';
import { MAX_PHOTOS_PER_BLOCK, type PhotoDraft } from './photo-draft';

export type SheetErrors = Record<string, string>;

export const MAX_BLOCKS = 20;

function without(errors: SheetErrors, drop: (key: string) => boolean): SheetErrors {
  const out: SheetErrors = {};
  for (const [k, v] of Object.entries(errors)) if (!drop(k)) out[k] = v;
  return out;
}

/** One list of photos per block, as long as the blocks. */
function photosFor(values: SheetFormValues, initial: readonly (readonly PhotoDraft[])[]): PhotoDraft[][] {
  return values.values.map((_, i) => [...(initial[i] ?? [])].slice(0, MAX_PHOTOS_PER_BLOCK));
}

export function useSheetForm(initialValues: SheetFormValues, initialErrors: SheetErrors = {}, initialPhotos: readonly (readonly PhotoDraft[])[] = []) {
  const [values, setValues] = useState(initialValues);
  const [errors, setErrors] = useState(initialErrors);
  const [photos, setPhotos] = useState(() => photosFor(initialValues, initialPhotos));

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
      setPhotos((p) => p.slice(0, last));
      return { ...v, values: v.values.slice(0, last) };
    });
  }, []);

  const addPhoto = useCallback((block: number, photo: PhotoDraft) => {
    setPhotos((p) => {
      const next = Array.from({ length: Math.max(p.length, block + 1) }, (_, i) => p[i] ?? []);
      if (next[block].length >= MAX_PHOTOS_PER_BLOCK || next[block].some((x) => x.clientId === photo.clientId)) return p;
      next[block] = [...next[block], photo];
      return next;
    });
  }, []);

  const removePhoto = useCallback((block: number, index: number) => {
    setPhotos((p) => p.map((list, i) => (i === block ? list.filter((_, j) => j !== index) : list)));
  }, []);

  // A block added after one was removed starts without photos (removeLastBlock drops them).
  const blockPhotos = values.values.map((_, i) => photos[i] ?? []);

  return { values, errors, photos: blockPhotos, setErrors, updateBlock, setDate, addBlock, removeLastBlock, addPhoto, removePhoto };
}
