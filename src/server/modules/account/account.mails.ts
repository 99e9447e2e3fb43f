// The French e-mails of the account domain: address validation after signup and password
// reset. Plain text first (what every client shows), with a simple HTML twin.
import type { Mail } from '../../mailer.js';
import { escapeHtml } from '../../html.js';

export const CONFIRMATION_SUBJECT = 'Validation de votre adresse mail';
export const RESET_SUBJECT = 'Réinitialisation de votre mot de passe';
export const SIGNUP_ATTEMPT_SUBJECT = 'Tentative d’inscription avec votre adresse mail';

function greeting(person: { nom: string; prenom: string | null }): string {
  const name = [person.prenom, person.nom].filter(Boolean).join(' ');
  return name ? `Bonjour ${name},` : 'Bonjour,';
}

function html(paragraphs: string[], links: string[]): string {
  const body = paragraphs
    .map((p) => (links.includes(p) ? `<p><a href="${escapeHtml(p)}">${escapeHtml(p)}</a></p>` : `<p>${escapeHtml(p)}</p>`))
    .join('\n');
  return `<!doctype html>\n<html lang="fr"><body>\n${body}\n</body></html>\n`;
}

function build(to: string, subject: string, paragraphs: string[], link: string | string[]): Mail {
  return { to, subject, text: `${paragraphs.join('\n\n')}\n`, html: html(paragraphs, Array.isArray(link) ? link : [link]) };
}

export function confirmationMail(opts: { appName: string; to: string; nom: string; prenom: string | null; link: string }): Mail {
  return build(
    opts.to,
    CONFIRMATION_SUBJECT,
    [
      greeting(opts),
      `Vous venez de créer un compte sur ${opts.appName}. Pour valider votre adresse mail, ouvrez ce lien (valable 7 jours, utilisable une seule fois) :`,
      opts.link,
      'Un administrateur activera ensuite votre compte ; vous pourrez alors vous connecter avec votre adresse mail.',
      'Si vous n’êtes pas à l’origine de cette inscription, ignorez ce message.',
      `L’équipe ${opts.appName}`,
    ],
    opts.link,
  );
}

export function resetMail(opts: { appName: string; to: string; nom: string; prenom: string | null; link: string }): Mail {
  return build(
    opts.to,
    RESET_SUBJECT,
    [
      greeting(opts),
      `Une demande de réinitialisation du mot de passe de votre compte ${opts.appName} a été faite. Pour choisir un nouveau mot de passe, ouvrez ce lien (valable 60 minutes, utilisable une seule fois) :`,
      opts.link,
      'Si vous n’avez rien demandé, ignorez ce message : votre mot de passe reste inchangé.',
      `L’équipe ${opts.appName}`,
    ],
    opts.link,
  );
}

/**
 * To an address that already has an account, when someone signs up with it: the signup
 * answers as for a new address (it must not tell who has an account), so the owner learns
 * it here, with the way in if it was them.
 */
export function signupAttemptMail(opts: { appName: string; to: string; nom: string; prenom: string | null; loginLink: string; passwordLink: string }): Mail {
  return build(
    opts.to,
    SIGNUP_ATTEMPT_SUBJECT,
    [
      greeting(opts),
      `Quelqu’un vient d’essayer de créer un compte sur ${opts.appName} avec votre adresse mail, qui a déjà un compte. Aucun nouveau compte n’a été créé.`,
      'Si c’était vous, connectez-vous avec votre adresse mail ou votre identifiant :',
      opts.loginLink,
      'Mot de passe oublié ? Choisissez-en un nouveau ici :',
      opts.passwordLink,
      'Si vous n’êtes pas à l’origine de cette demande, ignorez ce message : votre compte reste inchangé.',
      `L’équipe ${opts.appName}`,
    ],
    [opts.loginLink, opts.passwordLink],
  );
}
