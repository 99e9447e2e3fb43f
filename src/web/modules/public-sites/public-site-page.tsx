// /s/{code}: the page a household opens from the label on a composter. What the site is, where,
// when it is open (its next permanences) and what to bring; how it is doing (latest turn and transfer, how full the
// input bin is, whether mature compost is there to take); 'Je composte ici', where a household
// registers; a form to report a problem without an account; the programme's contact line. Plain React and a small stylesheet, no component
// library: the page must come quickly on a phone with a weak connection (it is also its own
// entry, public-site-main.tsx, served by the server with its data already in the page).
import { useEffect, useState, type FormEvent } from 'react';
import { formatParisDate } from '../../../shared/dates';
import type { PublicSite, SignalementInput } from '../../../shared/schemas/public-sites';
import { HouseholdForm } from './household-form';
import { PublicPermanences } from './public-permanences';
import { inlineSite, loadPublicSite, sendReport, type LoadResult } from './public-site.api';
import { EmailWithConsent, RobotTrapAndSubmit, usePublicForm } from './use-public-form';
import './public-site.css';

type State = { kind: 'loading' } | LoadResult;

export function PublicSitePage({ code }: { code: string }) {
  const [state, setState] = useState<State>(() => {
    const site = inlineSite(code);
    return site ? { kind: 'ok', site } : { kind: 'loading' };
  });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (state.kind === 'ok' && state.site.code.toUpperCase() === code.toUpperCase()) return;
    const controller = new AbortController();
    setState({ kind: 'loading' });
    void loadPublicSite(code, controller.signal).then((r) => {
      if (!controller.signal.aborted) setState(r);
    });
    return () => controller.abort();
    // The state is read to skip a load the server already did; it must not restart the load.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [code, attempt]);

  useEffect(() => {
    if (state.kind === 'ok') document.title = `${siteTitle(state.site)} – ${state.site.appName}`;
  }, [state]);

  if (state.kind === 'loading') {
    return (
      <main className="ps">
        <p role="status" className="ps-muted">
          Chargement…
        </p>
      </main>
    );
  }
  if (state.kind === 'not-found') {
    return (
      <main className="ps">
        <h1>Site introuvable</h1>
        <p>Ce site de compostage n’existe pas ou n’est plus en service.</p>
      </main>
    );
  }
  if (state.kind === 'error') {
    return (
      <main className="ps">
        <h1>Chargement impossible</h1>
        <p role="alert">{state.message}</p>
        <button type="button" className="ps-button" onClick={() => setAttempt((n) => n + 1)}>
          Réessayer
        </button>
      </main>
    );
  }
  return <SiteView site={state.site} />;
}

function siteTitle(site: PublicSite): string {
  return site.nom || `Site de compostage ${site.code}`;
}

function SiteView({ site }: { site: PublicSite }) {
  const address = `${site.numero ? `${site.numero} ` : ''}${site.adresse}`;
  return (
    <main className="ps">
      <p className="ps-brand">{site.appName} · compostage partagé</p>
      <h1>{siteTitle(site)}</h1>
      <p className="ps-muted">
        {site.typeSite} · site {site.code}
      </p>

      <section className="ps-card" aria-labelledby="ps-where">
        <h2 id="ps-where">Adresse</h2>
        <p>
          {address}
          <br />
          {site.cp} {site.ville}
        </p>
      </section>

      {site.horaires && (
        <section className="ps-card" aria-labelledby="ps-hours">
          <h2 id="ps-hours">Horaires</h2>
          <p className="ps-text">{site.horaires}</p>
        </section>
      )}

      <PublicPermanences code={site.code} permanences={site.permanences} />

      {site.consignes && (
        <section className="ps-card" aria-labelledby="ps-bring">
          <h2 id="ps-bring">Que déposer ?</h2>
          <p className="ps-text">{site.consignes}</p>
        </section>
      )}

      <section className="ps-card" aria-labelledby="ps-state">
        <h2 id="ps-state">Où en est le site ?</h2>
        <dl className="ps-facts">
          <dt>Dernier retournement</dt>
          <dd>{site.dernierRetournement ? formatParisDate(site.dernierRetournement) : 'Pas encore enregistré'}</dd>
          <dt>Dernier transfert</dt>
          <dd>{site.dernierTransfert ? formatParisDate(site.dernierTransfert) : 'Pas encore enregistré'}</dd>
          <dt>Remplissage du bac d’apport</dt>
          <dd>{site.niveauApport ? `${site.niveauApport.niveau} (le ${formatParisDate(site.niveauApport.date)})` : 'Pas encore relevé'}</dd>
          <dt>Compost mûr</dt>
          <dd>
            {site.compostMur === null
              ? 'Pas encore relevé'
              : site.compostMur.disponible
                ? `Disponible (niveau ${site.compostMur.niveau} le ${formatParisDate(site.compostMur.date)})`
                : `Pas de compost mûr pour le moment (relevé du ${formatParisDate(site.compostMur.date)})`}
          </dd>
        </dl>
      </section>

      <HouseholdForm code={site.code} />

      <ReportForm site={site} />

      <footer className="ps-footer">
        <p>
          Une question, envie de participer ? Contactez le programme : <strong>{site.contact}</strong>
        </p>
      </footer>
    </main>
  );
}

interface Values {
  categorie: string;
  texte: string;
  email: string;
  consentement: boolean;
  siteWeb: string;
}

const EMPTY: Values = { categorie: '', texte: '', email: '', consentement: false, siteWeb: '' };

function ReportForm({ site }: { site: PublicSite }) {
  const form = usePublicForm(EMPTY);
  const { id, values, set, errors, banner, sent, setSent, checked, send, describedBy, fieldError } = form;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    const length = values.texte.trim().length;
    if (!values.categorie) found.categorie = 'Choisissez une catégorie';
    if (length < site.texteMin || length > site.texteMax) found.texte = `Entre ${site.texteMin} et ${site.texteMax} caractères`;
    if (values.email.trim() && !values.consentement) found.consentement = 'Cochez la case pour que nous puissions vous répondre, ou laissez l’adresse vide';
    if (!checked(found)) return;
    await send(() =>
      sendReport(site.code, {
        categorie: values.categorie as SignalementInput['categorie'],
        texte: values.texte,
        email: values.email.trim() || null,
        consentement: values.consentement,
        ...(values.siteWeb ? { siteWeb: values.siteWeb } : {}),
      }),
    );
  };

  if (sent) {
    return (
      <section className="ps-card" aria-labelledby={`${id}-title`}>
        <h2 id={`${id}-title`}>Signaler un problème</h2>
        <p role="status" className="ps-success">
          {sent}
        </p>
        <button type="button" className="ps-button ps-secondary" onClick={() => setSent(null)}>
          Signaler autre chose
        </button>
      </section>
    );
  }


  return (
    <section className="ps-card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Signaler un problème</h2>
      <p className="ps-muted">Bac plein, mauvaise odeur… Prévenez l’équipe du site, sans créer de compte.</p>
      <form noValidate onSubmit={(e) => void submit(e)}>
        {banner && (
          <p role="alert" className="ps-error ps-banner">
            {banner}
          </p>
        )}
        <fieldset className="ps-fieldset" aria-describedby={describedBy('categorie')} aria-invalid={errors.categorie ? true : undefined}>
          <legend>
            Catégorie <span aria-hidden="true">*</span>
          </legend>
          <div className="ps-choices">
            {site.categories.map((c) => (
              <label key={c.value} className="ps-choice">
                <input type="radio" name="categorie" value={c.value} checked={values.categorie === c.value} onChange={() => set('categorie', c.value)} required />
                <span>{c.libelle}</span>
              </label>
            ))}
          </div>
          {fieldError('categorie')}
        </fieldset>

        <label htmlFor={`${id}-texte`} className="ps-label">
          Description du problème <span aria-hidden="true">*</span>
        </label>
        <textarea
          id={`${id}-texte`}
          name="texte"
          rows={4}
          maxLength={site.texteMax}
          required
          value={values.texte}
          aria-invalid={errors.texte ? true : undefined}
          aria-describedby={describedBy('texte', `${id}-texte-help`)}
          onChange={(e) => set('texte', e.currentTarget.value)}
        />
        <p id={`${id}-texte-help`} className="ps-help">
          {site.texteMin} à {site.texteMax} caractères ({values.texte.length}/{site.texteMax})
        </p>
        {fieldError('texte')}

        <EmailWithConsent
          form={form}
          label="Adresse mail (facultatif)"
          help="Pour recevoir une réponse quand votre signalement aura été traité."
          consent="J’accepte que cette adresse serve uniquement à me répondre au sujet de ce signalement. Elle n’est montrée à personne et elle est effacée dès que le signalement est traité."
        />

        <RobotTrapAndSubmit form={form} label="Envoyer le signalement" />
      </form>
    </section>
  );
}
