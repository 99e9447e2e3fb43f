// 'Je composte ici' on a site's public page: a household says it composts at the site (first
// name and e-mail optional, the e-mail only for the site's news and with consent, how many
// people, whether it received a kitchen bucket); the site's referents then confirm it. Like the
// report form beside it: plain React, every error said under its field at once, the server's
// refusals in its own words (429 when too many were sent), and a field people never see that a
// robot fills (its registration is dropped by the server).
import type { FormEvent } from 'react';
import { HOUSEHOLD_PERSONNES_MAX, HOUSEHOLD_PRENOM_MAX, HOUSEHOLD_TEXTS } from './household-texts';
import { sendHousehold } from './public-site.api';
import { EmailWithConsent, RobotTrapAndSubmit, usePublicForm } from './use-public-form';

interface Values {
  prenom: string;
  email: string;
  consentement: boolean;
  personnes: string;
  bioseau: boolean;
  siteWeb: string;
}

const EMPTY: Values = { prenom: '', email: '', consentement: false, personnes: '', bioseau: false, siteWeb: '' };
const FIELDS = new Set<string>(['prenom', 'email', 'consentement', 'personnes']);
/** Loose on purpose: the server's check is the real one; this only catches a slip early. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function HouseholdForm({ code }: { code: string }) {
  const form = usePublicForm(EMPTY, FIELDS);
  const { id, values, set, errors, banner, sent, checked, send, describedBy, fieldError } = form;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    const personnes = values.personnes.trim();
    const count = /^\d{1,3}$/.test(personnes) ? Number(personnes) : NaN;
    if (!(count >= 1 && count <= HOUSEHOLD_PERSONNES_MAX)) found.personnes = HOUSEHOLD_TEXTS.personnes;
    const email = values.email.trim();
    if (email && !EMAIL.test(email)) found.email = HOUSEHOLD_TEXTS.email;
    if (email && !values.consentement) found.consentement = HOUSEHOLD_TEXTS.consentement;
    if (!checked(found)) return;
    await send(() =>
      sendHousehold(code, {
        prenom: values.prenom.trim() || null,
        email: email || null,
        consentement: email ? values.consentement : false,
        personnes: count,
        bioseau: values.bioseau,
        ...(values.siteWeb ? { siteWeb: values.siteWeb } : {}),
      }),
    );
  };

  const title = <h2 id={`${id}-title`}>Je composte ici</h2>;
  if (sent) {
    return (
      <section className="ps-card" aria-labelledby={`${id}-title`}>
        {title}
        <p role="status" className="ps-success">
          {sent}
        </p>
      </section>
    );
  }


  return (
    <section className="ps-card" aria-labelledby={`${id}-title`}>
      {title}
      <p className="ps-muted">Vous déposez vos déchets de cuisine sur ce site ? Inscrivez votre foyer : les référents du site le confirmeront.</p>
      <form noValidate onSubmit={(e) => void submit(e)}>
        {banner && (
          <p role="alert" className="ps-error ps-banner">
            {banner}
          </p>
        )}
        <label htmlFor={`${id}-prenom`} className="ps-label">
          Prénom (facultatif)
        </label>
        <input
          id={`${id}-prenom`}
          name="prenom"
          type="text"
          autoComplete="given-name"
          maxLength={HOUSEHOLD_PRENOM_MAX}
          value={values.prenom}
          aria-invalid={errors.prenom ? true : undefined}
          aria-describedby={describedBy('prenom')}
          onChange={(e) => set('prenom', e.currentTarget.value)}
        />
        {fieldError('prenom')}

        <label htmlFor={`${id}-personnes`} className="ps-label">
          Personnes dans le foyer <span aria-hidden="true">*</span>
        </label>
        <input
          id={`${id}-personnes`}
          name="personnes"
          type="number"
          inputMode="numeric"
          min={1}
          max={HOUSEHOLD_PERSONNES_MAX}
          step={1}
          required
          className="ps-number"
          value={values.personnes}
          aria-invalid={errors.personnes ? true : undefined}
          aria-describedby={describedBy('personnes')}
          onChange={(e) => set('personnes', e.currentTarget.value)}
        />
        {fieldError('personnes')}

        <label className="ps-consent ps-check">
          <input type="checkbox" name="bioseau" checked={values.bioseau} onChange={(e) => set('bioseau', e.currentTarget.checked)} />
          <span>J’ai reçu un bio-seau</span>
        </label>

        <EmailWithConsent
          form={form}
          label="Adresse mail pour recevoir les nouvelles du site (facultatif)"
          help="Les permanences annulées et les nouvelles que les référents envoient ; vous pourrez les arrêter à tout moment."
          consent="J’accepte que cette adresse serve uniquement à m’envoyer les nouvelles de ce site. Seuls les référents du site la voient ; chaque message contient un lien pour ne plus les recevoir ou quitter le site."
        />

        <RobotTrapAndSubmit form={form} label="Inscrire mon foyer" />
      </form>
    </section>
  );
}
