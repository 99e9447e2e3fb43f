// What other modules may use of the households module: the site's households who receive its
// news, each with the links and the one-click unsubscribe headers (RFC 8058) a mail to them
// must carry (the permanences module tells them of a cancelled opening).
import type { Db } from '../../db/client.js';
import type { AppConfig } from '../../deps.js';
import { foyerLinks, linkKey } from './households.tokens.js';

export interface HouseholdRecipient {
  foyerId: number;
  email: string;
  prenom: string | null;
  /** The web page that lets the household leave the site (its record is deleted). */
  leaveUrl: string;
  /** The one-click unsubscribe endpoint (POST, RFC 8058). */
  unsubscribeUrl: string;
  /** List-Unsubscribe and List-Unsubscribe-Post, to add to the mail as they are. */
  headers: Record<string, string>;
}

export function createHouseholdMailing(deps: { db: Db; config: Pick<AppConfig, 'publicUrl'> }) {
  return {
    /** The site's confirmed households with an e-mail who still receive the news. */
    async recipients(siteId: number): Promise<HouseholdRecipient[]> {
      const rows = await deps.db
        .selectFrom('foyer')
        .select(['id', 'email', 'prenom'])
        .where('site_id', '=', siteId)
        .where('statut', '=', 'confirme')
        .where('nouvelles', '=', true)
        .where('email', 'is not', null)
        .orderBy('id')
        .execute();
      if (rows.length === 0) return [];
      const key = await linkKey(deps.db);
      return rows.map((r) => ({ foyerId: r.id, email: r.email!, prenom: r.prenom, ...foyerLinks(deps.config.publicUrl, key, r.id) }));
    },
  };
}

export type HouseholdMailing = ReturnType<typeof createHouseholdMailing>;
