// The interventions tables as their callers see them: the administrators' global and per-site
// lists (each row with its photo ids) with their CSV export, and the public per-site list. Who
// asks decides what the search looks at and what a row shows: an anonymous caller (anyone
// holding a site's link) never gets a name, an observation or a free-text value, nor finds rows
// by them.
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
import { EXPORT_HEADERS, FULL_SEARCH, createInterventionsAdminRepository, type InterventionListRecord, type ListFilter, type SearchScope } from './interventions-admin.repository.js';
import type { PhotoRef } from '../../../shared/schemas/photos.js';
import { createPhotosRepository } from '../photos/photos.repository.js';
import { createFieldEntryRepository } from '../field-entry/field-entry.repository.js';
import { SITE_STATUT } from '../../../shared/domain.js';

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

export function toListRow(r: InterventionListRecord, photos: PhotoRef[]): InterventionAdminListRow {
  return {
    id: r.id,
    date: iso(r.date)!,
    intervenant: r.intervenant,
    referent: r.intervenant,
    typeBac: r.typeBac,
    idTypeBac: r.idTypeBac,
    numeroBac: r.numeroBac,
    idSiteComposteur: r.idSiteComposteur,
    idBacDestination: r.bacDestination,
    typeAction: r.typeAction,
    idAction: r.idAction,
    actionValeur: r.actionValeur,
    valeur: valueOf(r),
    observations: r.observations,
    site: r.site,
    siteNom: r.siteNom,
    idSite: r.idSite,
    modificationAgent: r.modificationAgent,
    modifiedAt: iso(r.modifiedAt),
    idStatut: r.idStatut,
    demandeIntervention: r.demandeIntervention,
    interventionRealisee: r.interventionRealisee,
    locked: r.locked,
    pendingDemande: r.pendingDemande,
    photos,
  };
}

/** A public row: everything for a logged-in caller; no name, observation or free text for anyone else. */
export function toPublicRow(r: InterventionListRecord, anonymous: boolean): PublicSiteInterventionRow {
  const freeTextValue = ACTION_VALUE_KINDS[r.idAction] === 'text';
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
    valeur: anonymous && freeTextValue ? '' : valueOf(r),
    observations: anonymous ? null : r.observations,
    referent: anonymous ? null : r.intervenant,
    modificationAgent: anonymous ? null : r.modificationAgent,
    idStatut: r.idStatut,
    demandeIntervention: r.demandeIntervention,
    interventionRealisee: r.interventionRealisee,
  };
}

/** The administrators' list filter: `id` (the sites screen's dialog) or the Site filter restricts to one site. */
export function adminFilterOf(query: Pick<InterventionAdminListQuery, 'id' | 'filter' | 'search'>): ListFilter {
  const siteId = query.id ?? query.filter.site;
  // Within one site, its name would match every row or none: the search looks at the rest.
  const scope: SearchScope = siteId === undefined ? FULL_SEARCH : { ...FULL_SEARCH, site: false };
  return { siteId, action: query.filter.action, date: query.filter.date, search: query.search, scope };
}

export function createInterventionTablesService(db: Db) {
  const repo = createInterventionsAdminRepository(db);
  const base = createFieldEntryRepository(db);
  const photosRepo = createPhotosRepository(db);

  return {
    async adminList(query: InterventionAdminListQuery): Promise<InterventionAdminTable> {
      // The site is looked up while the page is read (an unknown site's page is empty anyway).
      const [site, { count, countCapped, rows }] = await Promise.all([
        query.id === undefined ? null : base.findSite(query.id),
        repo.list(adminFilterOf(query), query.sort, pageOf(query)),
      ]);
      if (query.id !== undefined && !site) throw new NotFoundError(INTERVENTION_MESSAGES.siteNotFound);
      // The photo ids of the page's rows, in one query (never the images).
      const photos = await photosRepo.photoIdsByIntervention(rows.map((r) => r.id));
      return { count, countCapped, interventions: rows.map((r) => toListRow(r, photos.get(r.id) ?? [])) };
    },

    /** export.csv of the list's search, filters and sort: every matching row, once. */
    exportCsv(query: InterventionAdminListQuery, opts: { batches?: boolean; batchSize?: number } = {}): Promise<Readable> {
      return repo.exportCsv(adminFilterOf(query), query.sort, csvHeader(EXPORT_HEADERS), opts);
    },

    async publicList(user: CurrentUser | null, siteId: number, query: SiteInterventionListQuery): Promise<PublicSiteInterventionList> {
      const anonymous = user === null;
      const f = query.filter;
      // The site is looked up while the page is read; a page of a site that is unknown or not
      // active is never shown.
      const [site, { count, rows }] = await Promise.all([
        base.findSite(siteId),
        repo.list(
          {
            siteId,
            date: f.date,
            action: f.action,
            typeBac: f.typeBac,
            numeroBac: f.numeroBac,
            search: query.search,
            // The table's own columns: action, cell type, value, and for a logged-in caller the observations.
            scope: { site: false, intervenant: false, freeText: !anonymous },
          },
          query.sort,
          pageOf(query),
        ),
      ]);
      if (!site || site.idStatut !== SITE_STATUT.actif) throw new NotFoundError(INTERVENTION_MESSAGES.siteNotFound);
      return { count, interventions: rows.map((r) => toPublicRow(r, anonymous)) };
    },
  };
}
