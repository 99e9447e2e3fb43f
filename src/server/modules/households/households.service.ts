// Rules of the households (foyers) of a site.
// - 'Je composte ici' is anonymous, so it is braked like the public page's reports: at most 5
//   registrations an hour from one client address (an IPv6 line counts as its /64) and 50 a day
//   on one site, counted in the database (every server process shares them). An attempt refused
//   for another reason (unknown site, the site's limit) gives its address allowance back. A
//   robot that fills the hidden field gets the usual answer and nothing is stored (nor counted
//   against the site). An address already waiting or confirmed on the site is not registered
//   twice, and the answer does not tell (it would tell who composts where).
// - A household is personal data: its list and decisions belong to the site's referents
//   (ROLE_USER on the sites of site_referent) and to ROLE_ADMIN and ROLE_ADMIN_SITE everywhere;
//   anyone else gets 403.
// - A household decides alone, without a login, through signed links (households.tokens.ts):
//   leaving deletes its record (a confirmed one leaves an anonymous trace for the past months'
//   count), the one-click unsubscribe stops the news.
// - A site's news goes to its confirmed households that receive the news, at most once a Paris
//   day per site; mails leave after the commit, and one that fails is logged without its address.
import type { FastifyBaseLogger } from 'fastify';
import type { AppDeps } from '../../deps.js';
import type { CurrentUser } from '../../plugins/auth.js';
import { ConflictError, ForbiddenError, NotFoundError, TooManyRequestsError } from '../../errors.js';
import { addressKey, createDbLimiter, type DbLimiter } from '../../rate-limit.js';
import { FOYER_MESSAGES, type FoyerList } from '../../../shared/schemas/households.js';
import { createHouseholdsRepository, type HouseholdsRepository } from './households.repository.js';
import { foyerFromToken, foyerLinks, linkKey, type FoyerLinkPurpose } from './households.tokens.js';
import { newsMail, welcomeMail } from './households.mails.js';
import { createHouseholdMailing } from './public.js';

const HOUR = 3600_000;

export const FOYER_LIMITS = {
  perAddress: { max: 5, windowMs: HOUR },
  perSite: { max: 50, windowMs: 24 * HOUR },
} as const;

export interface FoyerRegistration {
  prenom: string | null;
  email: string | null;
  personnes: number;
  bioseau: boolean;
  /** Undeclared keys come through too: the hidden field among them. */
  [key: string]: unknown;
}

/** Counts one more, or refuses with the French reason of this limit (and its Retry-After). */
async function hitOr(limiter: DbLimiter, key: string, message: string) {
  try {
    await limiter.hit(key);
  } catch (e) {
    if (e instanceof TooManyRequestsError) throw new TooManyRequestsError(e.retryAfterSeconds, message);
    throw e;
  }
}

const everywhere = (user: CurrentUser) => user.roles.includes('ROLE_ADMIN') || user.roles.includes('ROLE_ADMIN_SITE');

export function createHouseholdsService(deps: AppDeps & { now?: () => number }, log: FastifyBaseLogger) {
  const repo = createHouseholdsRepository(deps.db);
  const mailing = createHouseholdMailing(deps);
  const perAddress = createDbLimiter(deps.db, { kind: 'foyer-address', ...FOYER_LIMITS.perAddress, now: deps.now });
  const perSite = createDbLimiter(deps.db, { kind: 'foyer-site', ...FOYER_LIMITS.perSite, now: deps.now });
  const siteName = (s: { nom: string | null; code: string }) => s.nom || s.code;

  /** The households of this site are this user's to see and handle; 403 otherwise. */
  async function ensureScope(tx: HouseholdsRepository, user: CurrentUser, siteId: number) {
    if (everywhere(user)) return;
    if (!user.roles.includes('ROLE_USER') || !(await tx.isReferent(user.id, siteId))) throw new ForbiddenError();
  }

  async function send(mail: Parameters<AppDeps['mailer']['send']>[0], what: string) {
    try {
      await deps.mailer.send(mail);
    } catch (err) {
      log.warn({ err: { message: (err as Error).message.split(mail.to).join('…') } }, what);
    }
  }

  async function decide(user: CurrentUser, id: number, statut: 'confirme' | 'refuse') {
    const foyer = await repo.find(id);
    if (!foyer) throw new NotFoundError(FOYER_MESSAGES.notFound);
    await ensureScope(repo, user, foyer.siteId);
    if (!(await repo.decide(id, statut, user.id))) throw new ConflictError(FOYER_MESSAGES.alreadyHandled);
  }

  /** The household a link names, or 404 linkInvalid (forged, for another purpose, or its household gone). */
  async function fromLink(purpose: FoyerLinkPurpose, jeton: string): Promise<number> {
    const id = foyerFromToken(await linkKey(deps.db), purpose, jeton);
    if (id === null) throw new NotFoundError(FOYER_MESSAGES.linkInvalid);
    return id;
  }

  return {
    async register(code: string, input: FoyerRegistration, ip: string): Promise<void> {
      const sender = addressKey(ip);
      await hitOr(perAddress, sender, FOYER_MESSAGES.perAddress);
      let foyer: { id: number; site: string } | null = null;
      let siteKey: string | null = null;
      try {
        const site = await repo.publicSite(code.toUpperCase());
        if (!site) throw new NotFoundError(FOYER_MESSAGES.siteNotFound);
        if (input.siteWeb) return;
        await hitOr(perSite, String(site.id), FOYER_MESSAGES.perSite);
        siteKey = String(site.id);
        if (input.email && (await repo.hasLiveEmail(site.id, input.email))) return;
        const id = await repo.insert({ siteId: site.id, prenom: input.prenom, email: input.email, personnes: input.personnes, bioseau: input.bioseau });
        if (input.email) foyer = { id, site: siteName(site) };
      } catch (e) {
        await perAddress.refund(sender);
        if (siteKey !== null) await perSite.refund(siteKey);
        throw e;
      }
      if (foyer && input.email) {
        const links = foyerLinks(deps.config.publicUrl, await linkKey(deps.db), foyer.id);
        await send(welcomeMail({ appName: deps.config.APP_NAME, contact: deps.config.APP_CONTACT, to: input.email, prenom: input.prenom, site: foyer.site, ...links }), 'Mail de bienvenue au foyer non envoyé');
      }
    },

    async list(user: CurrentUser, siteId: number): Promise<FoyerList> {
      await ensureScope(repo, user, siteId);
      if (!(await repo.site(siteId))) throw new NotFoundError(FOYER_MESSAGES.siteNotFound);
      const rows = await repo.list(siteId);
      const confirmed = rows.filter((r) => r.statut === 'confirme');
      return {
        count: rows.length,
        confirmes: confirmed.length,
        personnes: confirmed.reduce((n, r) => n + r.personnes, 0),
        foyers: rows.map((r) => ({
          id: r.id,
          idSite: r.siteId,
          prenom: r.prenom,
          email: r.email,
          personnes: r.personnes,
          bioseau: r.bioseau,
          statut: r.statut,
          inscritLe: new Date(r.createdAt).toISOString(),
          traiteLe: r.traiteLe === null ? null : new Date(r.traiteLe).toISOString(),
          nouvelles: r.nouvelles,
        })),
      };
    },

    confirm: (user: CurrentUser, id: number) => decide(user, id, 'confirme'),
    refuse: (user: CurrentUser, id: number) => decide(user, id, 'refuse'),

    async leave(jeton: string): Promise<void> {
      if (!(await repo.leave(await fromLink('quitter', jeton)))) throw new NotFoundError(FOYER_MESSAGES.linkInvalid);
    },

    async unsubscribe(jeton: string): Promise<void> {
      if (!(await repo.unsubscribe(await fromLink('desabonner', jeton)))) throw new NotFoundError(FOYER_MESSAGES.linkInvalid);
    },

    /** Whether an unsubscribe link names a household that is still there (the GET page). */
    async unsubscribeLinkValid(jeton: string): Promise<boolean> {
      const id = foyerFromToken(await linkKey(deps.db), 'desabonner', jeton);
      return id !== null && (await repo.find(id)) !== undefined;
    },

    /** Sends the site's news; says to how many households. */
    async news(user: CurrentUser, input: { site: number; sujet: string; texte: string }): Promise<number> {
      await ensureScope(repo, user, input.site);
      const site = await repo.site(input.site);
      if (!site) throw new NotFoundError(FOYER_MESSAGES.siteNotFound);
      const recipients = await mailing.recipients(site.id);
      if (recipients.length === 0) throw new ConflictError(FOYER_MESSAGES.noRecipient);
      if (!(await repo.claimNews({ siteId: site.id, sujet: input.sujet, texte: input.texte, accountId: user.id, destinataires: recipients.length }))) {
        throw new ConflictError(FOYER_MESSAGES.onePerDay);
      }
      for (const r of recipients) {
        await send(
          newsMail({ appName: deps.config.APP_NAME, contact: deps.config.APP_CONTACT, to: r.email, prenom: r.prenom, site: siteName(site), sujet: input.sujet, texte: input.texte, leaveUrl: r.leaveUrl, unsubscribeUrl: r.unsubscribeUrl, headers: r.headers }),
          'Nouvelle du site non envoyée à un foyer',
        );
      }
      return recipients.length;
    },
  };
}
