// Forms bound to the same zod schema the API validates with (conventions.md: "the form uses
// the same schema"), and the server's `errors: [{key, error}]` shown under the matching fields.
//
//   const form = useZodForm(signupSchema, {
//     initialValues: { type: null, nom: '', ... },
//     blankAsMissing: ['type'],             // a cleared Select / NumberInput reads as "missing"
//   });
//   <form onSubmit={form.onSubmit(async (payload) => {        // payload = the schema's parsed output
//     try { await save(payload); }
//     catch (e) { const failure = await readFailure(e); form.setServerErrors(failure.errors); }
//   })}>
//   <TextInput label="Nom" {...form.getInputProps('nom')} />
//
// A dialog's save goes through useSaveAction, which shows a failure the way the contract
// says (banner, toast, errors under the fields) with the screen's own validation wording:
//
//   const save = useSaveAction({ invalid: 'Veuillez renseigner les champs obligatoires', setServerErrors: form.setServerErrors });
//   const submit = form.onSubmit((payload) => save.run(async () => { await add(payload); onDone(); }), save.showInvalid);
//   <ErrorBanner message={save.banner} /> ... <FormDialogFooter saving={save.saving} onCancel={onDone} />
//
// - Values are validated as typed, because the schemas are the server's: '' is a real string
//   for `z.string().optional()` and null is meaningful for `.nullable()`. Fields listed in
//   `blankAsMissing` send undefined instead of '' or null, so `z.coerce.number()` says
//   "required" rather than coercing a cleared input to 0.
// - Messages the schema does not set itself come out in French: 'Champ obligatoire' for a
//   missing value, zod's French locale otherwise.
// - Server keys join an array index without a dot (`values0.observations`, see
//   shared/errors.ts pathToKey); they are mapped back to form paths (`values.0.observations`)
//   by looking at which values are arrays, so a field really named `telephone2` stays intact.
// - Errors the form has no field for are returned by setServerErrors so the screen can show
//   them in its banner.
import { useState } from 'react';
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useForm, type FormErrors, type UseFormInput, type UseFormReturnType } from '@mantine/form';
import type { z } from 'zod';
import frenchMessages from 'zod/v4/locales/fr.js';
import type { FieldError } from '../../shared/errors';
import { readFailure, type ApiFailure } from './api';
import { notifyError, notifySuccess } from './notify';

export const REQUIRED_MESSAGE = 'Champ obligatoire';
/** The validation wording of most dialogs. */
export const FIELDS_REQUIRED = 'Veuillez renseigner les champs obligatoires';
/** Toast of a failed save; its banner ends with a full stop (the contract's wording). */
export const GENERIC_ERROR = 'Une erreur est survenue';

/** A banner's words for a failed call: the server's own message for a refusal (4xx), else GENERIC_ERROR. */
export const refusalMessage = (failure: ApiFailure) => (failure.message && failure.status !== null && failure.status < 500 ? failure.message : GENERIC_ERROR);

const french = frenchMessages().localeError;

/** Per-parse messages: lower precedence than the messages written in the schema itself. */
const formErrorMap: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === 'invalid_type' && (issue.input === undefined || issue.input === null || issue.input === '')) return REQUIRED_MESSAGE;
  return french(issue);
};

/** The values the schema sees: listed top-level fields holding '' or null become undefined. */
export function schemaInput(values: Record<string, unknown>, blankAsMissing: readonly string[] = []): Record<string, unknown> {
  if (blankAsMissing.length === 0) return values;
  const out = { ...values };
  for (const key of blankAsMissing) if (out[key] === '' || out[key] === null) out[key] = undefined;
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Form path of an issue path: segments joined with dots, array indexes included (`values.0.date`). */
function issuePath(path: readonly PropertyKey[]): string {
  return path.map((p) => String(p)).join('.');
}

/** Validates form values with the schema; the first message per field wins. */
export function validateWithSchema(schema: z.ZodType, values: unknown): FormErrors {
  const result = schema.safeParse(values, { error: formErrorMap });
  if (result.success) return {};
  const errors: FormErrors = {};
  for (const issue of result.error.issues) {
    const path = issuePath(issue.path);
    if (!(path in errors)) errors[path] = issue.message;
  }
  return errors;
}

/** The schema's output for valid values (trimmed, coerced, defaults applied). */
export function parseWithSchema<S extends z.ZodType>(schema: S, values: unknown): z.output<S> {
  return schema.parse(values, { error: formErrorMap });
}

/**
 * Turns a server key (`values0.observations`, `telephone2`) into a form path
 * (`values.0.observations`, `telephone2`), or null when the values hold no such field.
 */
export function serverKeyToPath(key: string, values: unknown): string | null {
  const out: string[] = [];
  let node: unknown = values;
  for (const segment of key.split('.')) {
    if (!isPlainObject(node) && !Array.isArray(node)) return null;
    const container = node as Record<string, unknown>;
    if (Object.prototype.hasOwnProperty.call(container, segment)) {
      out.push(segment);
      node = container[segment];
      continue;
    }
    const indexed = /^(.*?)(\d+)$/.exec(segment);
    const list = indexed ? container[indexed[1]] : undefined;
    if (!indexed || !Array.isArray(list) || Number(indexed[2]) >= list.length) return null;
    out.push(indexed[1], indexed[2]);
    node = list[Number(indexed[2])];
  }
  return out.join('.');
}

export type ZodForm<Values, Output> = UseFormReturnType<Values, Output, (values: Values) => FormErrors> & {
  /** Shows the server's per-field errors; returns those no field of the form could show. */
  setServerErrors: (errors: readonly FieldError[]) => FieldError[];
};

/** Mantine form validated by `schema`; onSubmit handlers receive the schema's parsed output. */
export function useZodForm<S extends z.ZodType, Values extends Record<string, unknown>>(
  schema: S,
  { blankAsMissing, ...input }: Omit<UseFormInput<Values, z.output<S>>, 'validate' | 'transformValues'> & {
    initialValues: Values;
    /** Top-level fields whose '' or null means "nothing chosen" (selects, number inputs). */
    blankAsMissing?: readonly (keyof Values & string)[];
  },
): ZodForm<Values, z.output<S>> {
  const form = useForm<Values, z.output<S>, FormErrors>({
    ...input,
    validate: (values) => validateWithSchema(schema, schemaInput(values, blankAsMissing)),
    transformValues: (values) => parseWithSchema(schema, schemaInput(values, blankAsMissing)),
  });
  const setServerErrors = (errors: readonly FieldError[]) => {
    const unmatched: FieldError[] = [];
    const mapped: FormErrors = {};
    for (const e of errors) {
      const path = serverKeyToPath(e.key, form.getValues());
      if (path === null) unmatched.push(e);
      else if (!(path in mapped)) mapped[path] = e.error;
    }
    form.setErrors(mapped);
    return unmatched;
  };
  return Object.assign(form, { setServerErrors });
}

export interface SaveActionOptions {
  /**
   * The screen's validation wording (the contract words it differently per screen): the banner when
   * the form does not validate, and the toast and banner start of a 400 with per-field errors.
   */
  invalid: string;
  /** false: the banner of such a 400 lists the errors alone, without `invalid` (roles dialog). */
  invalidInBanner?: boolean;
  /** true: a refusal other than a 500 (404, 409…) shows the server's message in the banner. */
  serverMessage?: boolean;
  /** Shows per-field errors and returns those no field could show; without it all go to the banner. */
  setServerErrors?: (errors: readonly FieldError[]) => FieldError[];
}

/**
 * Banner and saving state of a dialog's save. `run(save)` clears the banner, marks the dialog
 * saving and shows a failure of `save`: nothing for a 401 (the API client already left for
 * /logout) or a 403 (the API client said 'Accès non authorisé.' in a toast); for a 400 with errors, the errors under their fields, `invalid` and the other
 * errors in the banner, `invalid` as toast; otherwise 'Une erreur est survenue.' (or the
 * server's message, see `serverMessage`) in the banner and 'Une erreur est survenue' as toast.
 */
export function useSaveAction({ invalid, invalidInBanner = true, serverMessage = false, setServerErrors }: SaveActionOptions) {
  const [banner, setBanner] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const run = async (save: () => Promise<unknown>) => {
    setBanner(null);
    setSaving(true);
    try {
      await save();
    } catch (e) {
      const failure = await readFailure(e);
      if (failure.status === 401 || failure.status === 403) return;
      if (failure.status === 400 && failure.errors.length > 0) {
        const unmatched = setServerErrors ? setServerErrors(failure.errors) : failure.errors;
        setBanner([...(invalidInBanner ? [invalid] : []), ...unmatched.map((x) => x.error)].join(' : '));
        notifyError(invalid);
      } else {
        setBanner(serverMessage && failure.message && failure.status !== 500 ? failure.message : `${GENERIC_ERROR}.`);
        notifyError(GENERIC_ERROR);
      }
    } finally {
      setSaving(false);
    }
  };
  return { banner, saving, run, showInvalid: () => setBanner(invalid) };
}

/**
 * A dialog's form saved the usual way: `submit` validates with the schema, then `call(payload)`,
 * the `success` toast, the queries under each key of `invalidate` reloaded, and `onDone`; a
 * failure shows as useSaveAction says (`invalid` is FIELDS_REQUIRED unless told).
 */
export function useFormSave<Values, Output>(
  form: ZodForm<Values, Output>,
  { call, success, invalidate, onDone, ...options }: Partial<SaveActionOptions> & { call: (payload: Output) => Promise<unknown>; success: string; invalidate: readonly QueryKey[]; onDone: () => void },
) {
  const queryClient = useQueryClient();
  const save = useSaveAction({ invalid: FIELDS_REQUIRED, setServerErrors: form.setServerErrors, ...options });
  const submit = form.onSubmit(
    (payload) =>
      save.run(async () => {
        await call(payload);
        notifySuccess(success);
        await Promise.all(invalidate.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
        onDone();
      }),
    save.showInvalid,
  );
  return { ...save, submit };
}
