// /admin/fiche/site/{id} (the site sheet): the 'Gérer' form recording one or more actions
// on the cells of a site, each with up to three photos. Works with no network: the site, its
// cells and the catalogue come from the phone's copy, the entry is validated with the server's
// own rules and goes through the outbox with its photos. `?cellule={cellId}` preselects a cell
// (QR labels); `?corriger={clientId}` reopens an entry the server refused, with its errors under
// the fields. Opened by 'Traiter' on the requests board (the requests in the navigation state),
// a save goes back to the board. A save refused for its content (here or by the server) scrolls
// to the first field to correct and focuses it, outlines the blocks at fault with a caption, and
// says how many fields are left to correct beside the save button. A site this account may not
// record on (another site's QR label) says so in place: a 403 keeps the session and the queue.
// Over plain http (no service worker, offline/capability.ts) the sheet says the offline mode is
// off and keeps nothing on the phone that could not be sent.
// The date is the phone's own date and time picker: no calendar code to load on the phone.
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Alert, Anchor, Button, Center, Fieldset, Group, Loader, Paper, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { HTTPError } from 'ky';
import dayjs from 'dayjs';
import { Link, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { AccessDenied } from '../../components/access-denied';
import { typeActionsQuery } from '../../session/bootstrap.api';
import { useSessionStore } from '../../session/session-store';
import { notifySuccess } from '../../lib/notify';
import type { FieldError } from '../../../shared/errors';
import type { TypeAction, TypeActionConstante } from '../../../shared/schemas/reference';
import type { SiteInfos } from '../../../shared/schemas/interventions';
import { INTERVENTION_MESSAGES } from '../../../shared/schemas/intervention-rules';
import { DataAge } from '../../components/data-age';
import { fieldsToFix } from '../../components/form-dialog';
import { newClientId } from '../../offline/client-id';
import { offlineSupport, offlineUnavailableMessage } from '../../offline/capability';
import { useConnectivityStore, useIsOffline } from '../../offline/connectivity';
import { useEntryPhotos, useOutboxEntry, type InterventionOutboxEntry, type StoredPhoto } from '../../offline/hooks';
import { submitIntervention } from '../../offline/outbox-runner';
import { constantesQuery, siteInfosQuery } from './field-entry.api';
import { OfflineBanner } from './offline-banner';
import { MAX_BLOCKS, useSheetForm, type SheetErrors } from './use-sheet-form';
import { siteLabel } from '../../lib/labels';
import { OUTBOX_PATH, SITE_CHOICE_PATH } from './field-entry-paths';
import {
  DATE_FORMAT,
  errorKeyToPath,
  fromSubmission,
  initialSheetValues,
  prefillOf,
  requestSheetValues,
  type RequestPrefill,
  nowValue,
  toSubmission,
  type SheetFormValues,
} from './site-sheet-form';
import { asSubmission, validateSubmission } from './site-sheet-validation';
import { InterventionBlockFields } from './intervention-block-fields';
import { PhotoPicker, type PhotoDraft } from './photo-picker';
import { PROCESSED_MESSAGE } from './site-sheet-messages';
import { PageTitle } from '../../components/page-title';
import { EntryBanner } from './entry-banner';
import { PageAlert } from './page-alert';
import { can } from '../../../shared/permissions';
import { permanencesPath } from '../permanences/public';
import { foyersPath } from '../households/public';

export const SAVED_MESSAGE = INTERVENTION_MESSAGES.added;
export { PROCESSED_MESSAGE };
export const QUEUED_MESSAGE = 'Intervention enregistrée sur le téléphone, elle sera envoyée dès le retour du réseau';
export const REQUIRED_FIELDS_MESSAGE = 'Veuillez renseigner les champs obligatoires';
export const PHOTOS_DROPPED_MESSAGE = 'Espace de stockage insuffisant sur le téléphone : l’intervention est enregistrée sans ses photos.';
/** Without offline mode (plain http): the entry could not reach the server and was not kept. */
export const NOT_SENT_NO_NETWORK = 'Intervention non enregistrée : pas de réseau';
export const NOT_SENT_SERVER_DOWN = 'Intervention non enregistrée : serveur indisponible';
export const NOT_KEPT_DETAIL =
  'Sur cette adresse, les saisies ne sont pas gardées sur le téléphone. Votre saisie est toujours dans le formulaire : enregistrez-la de nouveau dès que possible.';
/** Without offline mode, an entry that waits anyway (a correction, a session to renew, a send still on its way). */
export const WAITING_NOT_KEPT_MESSAGE = 'Intervention pas encore envoyée : elle attend dans la liste des envois, renvoyez-la dès que possible.';

/** The native date-and-time input's value ('2026-03-02T09:30') of the form's ('2026-03-02 09:30:00'). */
export function toDateInput(value: string | null): string {
  if (!value) return '';
  const d = dayjs(value);
  return d.isValid() ? d.format('YYYY-MM-DDTHH:mm') : '';
}

/** The form's value of the native input's ('' when cleared). */
export function fromDateInput(value: string): string | null {
  if (!value) return null;
  const d = dayjs(value);
  return d.isValid() ? d.second(0).format(DATE_FORMAT) : null;
}
/** Where 'Traiter' comes from, and where its save goes back to. */
export const REQUESTS_BOARD_PATH = '/admin/demande/intervention/list';

/** The stored photos of an entry, one list per block. */
function photosByBlock(photos: readonly StoredPhoto[]): PhotoDraft[][] {
  const out: PhotoDraft[][] = [];
  for (const p of photos) (out[p.block] ??= []).push({ clientId: p.clientId, type: p.type, data: p.data });
  return Array.from({ length: out.length }, (_, i) => out[i] ?? []);
}

/** Server keys (values0.valeur) to form paths (values.0.valeur); the rest goes to the banner. */
function toFormErrors(errors: readonly FieldError[], values: SheetFormValues): { fields: SheetErrors; unmatched: FieldError[] } {
  const fields: SheetErrors = {};
  const unmatched: FieldError[] = [];
  for (const e of errors) {
    const path = errorKeyToPath(e.key, values);
    if (path === null) unmatched.push(e);
    else if (!(path in fields)) fields[path] = e.error;
  }
  return { fields, unmatched };
}

function loadErrorText(error: unknown): string {
  if (error instanceof HTTPError) {
    if (error.response.status === 404) return 'Site introuvable';
    return 'Une erreur est survenue';
  }
  return 'Ce site n’est pas encore disponible hors ligne : ouvrez-le une première fois avec du réseau.';
}

export function SiteSheetPage() {
  const params = useParams();
  const siteId = Number(params.id);
  const validId = Number.isInteger(siteId) && siteId > 0;
  const [search] = useSearchParams();
  const location = useLocation();
  const correcting = search.get('corriger');
  // 'Traiter' on the requests board: one prefilled block per request (navigation state).
  const prefill = correcting ? null : prefillOf(location.state);
  const infos = useQuery({ ...siteInfosQuery(siteId), enabled: validId });
  const typeActions = useQuery(typeActionsQuery());
  const constantes = useQuery(constantesQuery());
  const entry = useOutboxEntry(correcting);
  const entryPhotos = useEntryPhotos(correcting);

  if (!validId) return <PageAlert text="Site introuvable" />;
  if (infos.isError && infos.error instanceof HTTPError && infos.error.response.status === 403) {
    return <AccessDenied>Ce site n’est pas l’un des vôtres : vous ne pouvez pas y saisir d’intervention. Vous restez connecté et vos saisies en attente sont conservées.</AccessDenied>;
  }
  if (infos.isError) return <PageAlert text={loadErrorText(infos.error)} />;
  if (typeActions.isError || constantes.isError) return <PageAlert text="Le catalogue des actions n’est pas disponible : reconnectez-vous au réseau puis réessayez." />;
  if (infos.isPending || typeActions.isPending || constantes.isPending || entry === undefined || entryPhotos === undefined) {
    return (
      <Center py="xl" role="status" aria-live="polite">
        <Stack align="center" gap="sm">
          <Loader aria-hidden />
          <Text>Chargement…</Text>
        </Stack>
      </Center>
    );
  }
  if (correcting && entry === null) {
    return <PageAlert text="Cette saisie n’est plus dans la file d’envoi : elle a été envoyée ou supprimée." />;
  }
  return (
    <SiteSheetForm
      key={`${siteId}-${correcting ?? ''}-${prefill ? location.key : ''}`}
      site={infos.data.data}
      offlineSince={infos.data.offline ? infos.data.fetchedAt : null}
      // The phone's copy says when it was fetched; a network answer is as old as the query's.
      dataUpdatedAt={infos.data.offline ? infos.data.fetchedAt : infos.dataUpdatedAt}
      typeActions={typeActions.data}
      constantes={constantes.data}
      preselectedCell={search.get('cellule')}
      entry={entry}
      entryPhotos={entryPhotos}
      prefill={prefill}
    />
  );
}

interface FormProps {
  site: SiteInfos;
  offlineSince: number | null;
  dataUpdatedAt: number;
  typeActions: TypeAction[];
  constantes: TypeActionConstante[];
  preselectedCell: string | null;
  entry: InterventionOutboxEntry | null;
  entryPhotos: readonly StoredPhoto[];
  prefill: RequestPrefill[] | null;
}

function SiteSheetForm({ site, offlineSince, dataUpdatedAt, typeActions, constantes, preselectedCell, entry, entryPhotos, prefill }: FormProps) {
  const navigate = useNavigate();
  const offline = useIsOffline();
  // 'Traiter' on the board: the user goes back there, with the message of that screen.
  const fromBoard = prefill !== null;
  const doneAt = fromBoard ? REQUESTS_BOARD_PATH : SITE_CHOICE_PATH;
  const userId = useSessionStore((s) => s.id);
  const username = useSessionStore((s) => s.username);
  // Who may see this sheet and manage permanences and households manages this site's (a referent
  // sees only their own sites).
  const roles = useSessionStore((s) => s.roles);
  const managesPermanences = can(roles, 'permanence.manage');
  const managesHouseholds = can(roles, 'foyer.manage');
  const cells = useMemo(() => [...site.siteComposteurs].sort((a, b) => a.numero - b.numero), [site.siteComposteurs]);
  const preselected = preselectedCell !== null && cells.some((c) => String(c.id) === preselectedCell) ? preselectedCell : null;
  // The entry's identity: kept across corrections so the server can never record it twice.
  const [clientId] = useState(() => entry?.clientId ?? newClientId());
  const [stored, setStored] = useState(entry !== null);
  const [banner, setBanner] = useState<{ title: string; lines: string[] } | null>(() =>
    entry?.lastError ? { title: entry.lastError, lines: [] } : null,
  );
  const [saving, setSaving] = useState(false);
  // Offline mode needs a secure origin; without it nothing unsent is kept on the phone.
  const [support] = useState(offlineSupport);
  const notKept = offlineUnavailableMessage(support);
  const formRef = useRef<HTMLFormElement>(null);
  const bannerRef = useRef<HTMLDivElement>(null);
  // Bumped after a refused save: once the errors are drawn, the first one gets the focus.
  const [focusRequest, setFocusRequest] = useState(0);

  const form = useSheetForm(
    entry ? fromSubmission(entry.payload) : prefill ? requestSheetValues(prefill) : initialSheetValues(preselected),
    entry ? toFormErrors(entry.fieldErrors, fromSubmission(entry.payload)).fields : {},
    photosByBlock(entryPhotos),
  );

  /** Scrolls to the first field to correct and focuses it; to the banner when no field shows the error. */
  const focusFirstError = () => {
    const field = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]:not([disabled])');
    const target = field ?? bannerRef.current;
    if (!target) return;
    target.scrollIntoView({ block: 'center' });
    target.focus({ preventScroll: true });
  };

  useEffect(() => {
    if (focusRequest > 0) focusFirstError();
  }, [focusRequest]);

  const errorCount = Object.keys(form.errors).length;
  const blockErrorCount = (index: number) => Object.keys(form.errors).filter((k) => k.startsWith(`values.${index}.`)).length;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (saving || userId === null) return;
    setSaving(true);
    setBanner(null);
    const { values } = form;
    try {
      const draft = toSubmission(values, { clientId, siteId: site.id, typeActions });
      const errors = validateSubmission(draft, { typeActions, constantes, site });
      if (errors.length > 0) {
        const { fields, unmatched } = toFormErrors(errors, values);
        form.setErrors(fields);
        // Errors without a field (the number of blocks) still have to be seen.
        setBanner({ title: REQUIRED_FIELDS_MESSAGE, lines: unmatched.map((e) => e.error) });
        setFocusRequest((n) => n + 1);
        return;
      }
      form.setErrors({});
      const payload = asSubmission(draft, errors);
      const photos = form.photos.flatMap((list, block) => list.map((p) => ({ clientId: p.clientId, block, type: p.type, data: p.data })));
      const outcome = await submitIntervention(
        payload,
        { ownerId: userId, ownerName: username ?? '', siteLabel: siteLabel(site) },
        // An entry already on the phone (a correction) stays there; a new one only where the phone can keep it.
        { correcting: stored, photos, keepUnsent: notKept === null || stored },
      );
      if (outcome.kind === 'notSent') {
        const { browserOnline, serverUnreachable, cause } = useConnectivityStore.getState();
        const serverDown = browserOnline && serverUnreachable && cause === 'server';
        setBanner({ title: serverDown ? NOT_SENT_SERVER_DOWN : NOT_SENT_NO_NETWORK, lines: [NOT_KEPT_DETAIL] });
        setFocusRequest((n) => n + 1);
        return;
      }
      setStored(true);
      if (outcome.photosDropped) notifications.show({ message: PHOTOS_DROPPED_MESSAGE, color: 'orange', autoClose: 10_000 });
      switch (outcome.kind) {
        case 'sent':
          notifySuccess(fromBoard ? PROCESSED_MESSAGE : SAVED_MESSAGE);
          void navigate(doneAt);
          return;
        case 'queued':
        case 'auth':
          // Never a promise the phone cannot keep (no offline mode over plain http).
          notifications.show({ message: notKept === null ? QUEUED_MESSAGE : WAITING_NOT_KEPT_MESSAGE, color: notKept === null ? 'blue' : 'orange', autoClose: 6000 });
          void navigate(notKept === null ? doneAt : OUTBOX_PATH);
          return;
        case 'invalid': {
          const { fields, unmatched } = toFormErrors(outcome.errors, values);
          form.setErrors(fields);
          setBanner({ title: outcome.message || REQUIRED_FIELDS_MESSAGE, lines: unmatched.map((e) => e.error) });
          setFocusRequest((n) => n + 1);
          return;
        }
        case 'rejected':
          setBanner({ title: outcome.message, lines: ['La saisie reste dans la liste des envois, où vous pouvez la renvoyer ou la supprimer.'] });
          setFocusRequest((n) => n + 1);
          return;
      }
    } catch {
      // IndexedDB refused the write (or could not be loaded): nothing was saved.
      setBanner({ title: 'Une erreur est survenue', lines: ['La saisie n’a pas pu être enregistrée sur le téléphone.'] });
      setFocusRequest((n) => n + 1);
    } finally {
      setSaving(false);
    }
  };

  const addressLine = [site.numero, site.adresse].filter(Boolean).join(' ');
  const now = new Date();

  return (
    <Stack maw={720} mx="auto" gap="md">
      <OfflineBanner />
      {notKept !== null && (
        <Alert color="orange" variant="light" role="note" data-testid="offline-unavailable">
          {notKept}
        </Alert>
      )}
      <Paper withBorder radius="md" p="md" component="section" aria-labelledby="site-sheet-title">
        <Stack gap="md">
          <div>
            <PageTitle size="h2" id="site-sheet-title">
              Gérer
            </PageTitle>
            <Text fw={600}>
              {site.nom ? `${site.nom} (${site.code})` : site.code}
            </Text>
            <Text size="sm">{addressLine}</Text>
            <Text size="sm">
              {site.cp} {site.ville}
            </Text>
            <Text size="sm" c="dimmed">
              {site.typeSite}
            </Text>
            {offlineSince !== null && (
              <Text size="xs" c="dimmed">
                Données du site enregistrées sur le téléphone le {dayjs(offlineSince).format('DD/MM/YYYY à HH:mm')}
              </Text>
            )}
            <DataAge updatedAt={dataUpdatedAt} show={offline} />
          </div>

          {entry && (
            <Alert color="orange" title="Correction d’une saisie refusée par le serveur">
              Corrigez les champs signalés puis enregistrez : la saisie sera renvoyée.
            </Alert>
          )}
          {preselectedCell !== null && preselected === null && (
            <Alert color="orange" role="alert">
              Cette cellule n’existe pas ou n’est plus active sur ce site : choisissez-la dans la liste.
            </Alert>
          )}
          {banner && (
            <EntryBanner banner={banner} stored={stored} ref={bannerRef} />
          )}
          {cells.length === 0 && <Alert color="orange">Ce site n’a aucune cellule active.</Alert>}

          <form onSubmit={submit} noValidate ref={formRef}>
            <Stack gap="md">
              {form.values.values.map((block, index) => {
                const blockErrors = blockErrorCount(index);
                const captionId = `site-sheet-block-${index}-errors`;
                return (
                  <Fieldset
                    key={index}
                    legend={`Action ${index + 1}${block.demandeIntervention ? ' (demande d’intervention)' : ''}`}
                    data-invalid={blockErrors > 0 || undefined}
                    aria-describedby={blockErrors > 0 ? captionId : undefined}
                    style={blockErrors > 0 ? { borderColor: 'var(--mantine-color-error)', borderWidth: 2 } : undefined}
                  >
                    <Stack gap="md">
                      {blockErrors > 0 && (
                        <Text id={captionId} size="sm" c="red" fw={600}>
                          {fieldsToFix(blockErrors)} dans cette action
                        </Text>
                      )}
                      <InterventionBlockFields
                        block={block}
                        cells={cells}
                        typeActions={typeActions}
                        constantes={constantes}
                        errorOf={(field) => form.errors[`values.${index}.${field}`]}
                        onChange={(patch) => form.updateBlock(index, patch)}
                      />
                      <PhotoPicker
                        photos={form.photos[index]}
                        blockLabel={`Action ${index + 1}`}
                        onAdd={(photo) => form.addPhoto(index, photo)}
                        onRemove={(i) => form.removePhoto(index, i)}
                      />
                    </Stack>
                  </Fieldset>
                );
              })}

              <Group gap="sm">
                <Button variant="light" onClick={form.addBlock} disabled={form.values.values.length >= MAX_BLOCKS}>
                  Ajouter action
                </Button>
                {form.values.values.length > 1 && (
                  <Button variant="subtle" color="red" onClick={form.removeLastBlock}>
                    Supprimer dernière action
                  </Button>
                )}
              </Group>

              <Stack gap={4} align="flex-start">
                <TextInput
                  type="datetime-local"
                  label="Date de l'intervention"
                  withAsterisk
                  max={toDateInput(nowValue(now))}
                  value={toDateInput(form.values.date)}
                  onChange={(e) => form.setDate(fromDateInput(e.currentTarget.value))}
                  error={form.errors.date}
                  w="100%"
                />
                <Button variant="subtle" size="compact-sm" onClick={() => form.setDate(nowValue())}>
                  Maintenant
                </Button>
              </Stack>

              <Group justify="flex-end" gap="sm" wrap="wrap">
                {/* Always in the page, so that screen readers hear the count change. */}
                <div aria-live="polite">
                  {errorCount > 0 && (
                    <Anchor component="button" type="button" c="red" fw={600} size="sm" onClick={focusFirstError}>
                      {fieldsToFix(errorCount)}
                    </Anchor>
                  )}
                </div>
                <Button type="submit" loading={saving}>
                  Enregistrer
                </Button>
              </Group>
              <Group gap="sm">
                <Button component={Link} to={`/interventions/site/${site.id}`} variant="default">
                  Voir les interventions
                </Button>
                <Button component={Link} to={`/admin/fiche/site/${site.id}/etiquettes`} variant="subtle">
                  Étiquettes QR des cellules
                </Button>
                {managesPermanences && (
                  <Button component={Link} to={permanencesPath(site.id)} variant="subtle">
                    Permanences
                  </Button>
                )}
                {managesHouseholds && (
                  <Button component={Link} to={foyersPath(site.id)} variant="subtle">
                    Foyers
                  </Button>
                )}
              </Group>
            </Stack>
          </form>
        </Stack>
      </Paper>
    </Stack>
  );
}
