// The interventions tables as their callers see them: the administrators' global and per-site
// lists (each row with its photo ids) with their CSV export, and the public per-site list. Who
// asks decides what the search looks at and what a row shows: only who may record on the site
// (its referents, providers, site administrators: the field entry's rule) gets names,
// observations and free-text values, which hold phone numbers and padlock codes; anyone else
// holding the site's link, logged in or not, neither gets them nor finds rows by them.
import type { Readable } from 'node:stream';
import type { CurrentUser } from '../../plugins/auth.js';
import type { Db } from '../../db/client.js';
import { pageOf } from '../../db/list.js';
import { csvHeader } from '../../csv.js';
import { NotFoundError } from '../../errors.js';
import { ACTION_VALUE_KINDS, INTERVENTION_MESSAGES, displayValue, type SiteInterventionListQuery } from '../../../shared/schemas/interventions.js';
import type {
  InterventionAdminListQuery,
  InterventionAdminListRow,
  InterventionAdminTable,
  PublicSiteInterventionList,
  PublicSiteInterventionRow,
} from '../../../shared/schemas/interventions-admin.js';
import { EXPORT_HEADERS, exportCsv } from './intervention-export.js';
import { createInterventionList, type ListFilter } from './intervention-list.js';
import type { InterventionListRecord } from './intervention-rows.js';
import { FULL_SEARCH } from './intervention-search.js';
import type { PhotoRef } from '../../../shared/schemas/photos.js';
import { createPhotosRepository } from '../photos/public.js';
import { createFieldEntryRepository } from '../field-entry/public.js';
import { SITE_STATUT } from '../../../shared/domain.js';
import { can } from '../../../shared/permissions.js';

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

function valueOf(r: InterventionListRecord): string {
  return displayValue({
    idAction: r.idAction,
    valeurNombre: r.valeurNombre === null ? null : Number(r.valeurNombre),
    constante: r.constante,
    valeurTexte: r.valeurTexte,
    destinationNumeroBac: r.destinationNumeroBac,
  });
}

/** The fields every interventions table shows, whoever asks. */
function sharedFields(r: InterventionListRecord) {
  return {
    id: r.id,
    date: iso(r.date)!,
    idAction: r.idAction,
    typeAction: r.typeAction,
    actionValeur: r.actionValeur,
    typeBac: r.typeBac,
    idTypeBac: r.idTypeBac,
    numeroBac: r.numeroBac,
    idSiteComposteur: r.idSiteComposteur,
    idBacDestination: r.bacDestination,
    idSite: r.idSite,
    site: r.site,
    siteNom: r.siteNom,
    idStatut: r.idStatut,
    demandeIntervention: r.demandeIntervention,
    interventionRealisee: r.interventionRealisee,
  };
}

export function toListRow(r: InterventionListRecord, photos: PhotoRef[]): InterventionAdminListRow {
  return {
    ...sharedFields(r),
    intervenant: r.intervenant,
    referent: r.intervenant,
    valeur: valueOf(r),
    observations: r.observations,
    modificationAgent: r.modificationAgent,
    modifiedAt: iso(r.modifiedAt),
    locked: r.locked,
    pendingDemande: r.pendingDemande,
    photos,
  };
}

/** A public row: everything for who may see the site; no name, observation or free text for anyone else. */
export function toPublicRow(r: InterventionListRecord, hidden: boolean): PublicSiteInterventionRow {
  return {
    ...sharedFields(r),
    valeur: hidden && ACTION_VALUE_KINDS[r.idAction] === 'text' ? '' : valueOf(r),
    observations: hidden ? null : r.observations,
    referent: hidden ? null : r.intervenant,
    modificationAgent: hidden ? null : r.modificationAgent,
  };
}

/** The administrators' list filter: `id` (the sites screen's dialog) or the Site filter restricts to one site. */
export function adminFilterOf(query: Pick<InterventionAdminListQuery, 'id' | 'filter' | 'search'>): ListFilter {
  const siteId = query.id ?? query.filter.site;
  // Within one site, its name would match every row or none: the search looks at the rest.
  return { siteId, action: query.filter.action, date: query.filter.date, search: query.search, scope: { ...FULL_SEARCH, site: siteId === undefined } };
}

/** The public list's filter: the table's own columns (action, cell type, value, and the observations for who sees them). */
export function publicFilterOf(siteId: number, query: Pick<SiteInterventionListQuery, 'filter' | 'search'>, hidden: boolean): ListFilter {
  return { siteId, ...query.filter, search: query.search, scope: { site: false, intervenant: false, freeText: !hidden } };
}

export function createInterventionTablesService(db: Db) {
  const lists = createInterventionList(db);
  const base = createFieldEntryRepository(db);
  const photosRepo = createPhotosRepository(db);

  return {
    async adminList(query: InterventionAdminListQuery): Promise<InterventionAdminTable> {
      // The site is looked up while the page is read (an unknown site's page is empty anyway).
      const [site, { count, countCapped, rows }] = await Promise.all([
        query.id === undefined ? null : base.findSite(query.id),
        lists.list(adminFilterOf(query), query.sort, pageOf(query)),
      ]);
      if (query.id !== undefined && !site) throw new NotFoundError(INTERVENTION_MESSAGES.siteNotFound);
      // The photo ids of the page's rows, in one query (never the images).
      const photos = await photosRepo.photoIdsByIntervention(rows.map((r) => r.id));
      return { count, countCapped, interventions: rows.map((r) => toListRow(r, photos.get(r.id) ?? [])) };
    },

    /** export.csv of the list's search, filters and sort: every matching row, once. */
    async exportCsv(query: InterventionAdminListQuery, opts: { batches?: boolean; batchSize?: number } = {}): Promise<Readable> {
      return exportCsv(db, await lists.plan(adminFilterOf(query), query.sort), csvHeader(EXPORT_HEADERS), opts);
    },

    async publicList(user: CurrentUser | null, siteId: number, query: SiteInterventionListQuery): Promise<PublicSiteInterventionList> {
      // A page of a site that is unknown or not active is never shown. Who may record on the
      // site sees it whole; only a referent waits for the site row to know.
      const found = base.findSite(siteId, user?.id);
      const mayRecord = user !== null && can(user.roles, 'intervention.add');
      const hidden = !(mayRecord && (can(user.roles, 'site.chooseAll') || (await found)?.isReferent === true));
      const [site, { count, countCapped, rows }] = await Promise.all([found, lists.list(publicFilterOf(siteId, query, hidden), query.sort, pageOf(query))]);
      if (!site || site.idStatut !== SITE_STATUT.actif) throw new NotFoundError(INTERVENTION_MESSAGES.siteNotFound);
      return { count, countCapped, interventions: rows.map((r) => toPublicRow(r, hidden)) };
    },
  };
}
