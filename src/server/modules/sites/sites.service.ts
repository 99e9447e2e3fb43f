// Rules of the sites domain that the payload schemas cannot check alone: references to
// cities, types and cells that must exist, cell numbers unique among a site's active
// cells, the site code sequence, the convention history, and one transaction per save
// so that a site, its requester and its cells are saved together or not at all. A site's
// coordinates come from the imported address points unless typed on the form; typed ones must
// fall within the territory's frame (shared/schemas/territory.ts).
import type { Db } from '../../db/client.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import type { FieldError } from '../../../shared/errors.js';
import { SITE_MESSAGES, SITE_STATUT, toStoredDate, type SiteAdd, type SiteUpdate } from '../../../shared/schemas/sites.js';
import { formatParisDate } from '../../../shared/dates.js';
import { positionErrors, territoryFrame, type TerritoryFrame } from '../../../shared/schemas/territory.js';
import { createSitesRepository, type CellInput, type SitePublicColumns, type SitesRepository } from './sites.repository.js';

type Coordinates = Pick<SitePublicColumns, 'latitude' | 'longitude' | 'coordonnees_source'>;
const NO_COORDINATES: Coordinates = { latitude: null, longitude: null, coordonnees_source: null };

/**
 * Where the site stands. Typed coordinates are kept as typed ('saisie'); the ones the form
 * sends back unchanged from the address points, empty ones, or none at all for a site placed
 * from its address, follow the address: its imported point ('ban'), or nothing when it has
 * none (a moved site must not keep the old spot). Absent from an update: typed ones are kept.
 */
async function coordinatesFor(
  repo: SitesRepository,
  input: { latitude?: number | null; longitude?: number | null },
  current: Coordinates | null,
  address: { code_insee: string | null; adresse: string; numero: string | null },
): Promise<Coordinates> {
  if (typeof input.latitude === 'number' && typeof input.longitude === 'number') {
    const fromAddress = current?.coordonnees_source === 'ban' && current.latitude === input.latitude && current.longitude === input.longitude;
    if (!fromAddress) return { latitude: input.latitude, longitude: input.longitude, coordonnees_source: 'saisie' };
  } else if (input.latitude === undefined && input.longitude === undefined && current?.coordonnees_source === 'saisie') {
    return current;
  }
  const point = await repo.addressPoint(address);
  return point ? { latitude: point.latitude, longitude: point.longitude, coordonnees_source: 'ban' } : NO_COORDINATES;
}

/** The frame typed coordinates must fall in: the territory's address points widened, or France. */
export async function loadTerritoryFrame(db: Db): Promise<TerritoryFrame> {
  return territoryFrame(await createSitesRepository(db).territoryPointsBox());
}

/** Errors on typed coordinates far from the territory; none when the payload has no position. */
async function positionErrorsOf(repo: SitesRepository, input: { latitude?: number | null; longitude?: number | null }): Promise<FieldError[]> {
  if (typeof input.latitude !== 'number' || typeof input.longitude !== 'number') return [];
  return positionErrors(territoryFrame(await repo.territoryPointsBox()), input.latitude, input.longitude);
}

function inTransaction<T>(db: Db, fn: (repo: SitesRepository) => Promise<T>): Promise<T> {
  return db.transaction().execute((trx) => fn(createSitesRepository(trx)));
}

/** Errors on cells that point to unknown composter or cell types, keyed `<prefix><index>.<field>`. */
async function checkCellReferences(repo: SitesRepository, cells: CellInput[], keyOf: (i: number, field: string) => string): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  const composteurs = await repo.existingIds('type_composteur', [...new Set(cells.map((c) => c.composteur))]);
  const typeBacs = await repo.existingIds('type_bac', [...new Set(cells.map((c) => c.typeBac))]);
  cells.forEach((c, i) => {
    if (!composteurs.has(c.composteur)) errors.push({ key: keyOf(i, 'composteur'), error: SITE_MESSAGES.composteurUnknown });
    if (!typeBacs.has(c.typeBac)) errors.push({ key: keyOf(i, 'typeBac'), error: SITE_MESSAGES.typeBacUnknown });
  });
  return errors;
}

function numeroErrors(cells: CellInput[], taken: Set<number>, keyOf: (i: number) => string): FieldError[] {
  return cells.flatMap((c, i) => (taken.has(c.numero) ? [{ key: keyOf(i), error: SITE_MESSAGES.numeroTaken }] : []));
}

export function createSitesService(db: Db) {
  return {
    /** A status 1 site keeps its cells and dates; a status 2 site (a request) keeps its requester. */
    create(input: SiteAdd) {
      return inTransaction(db, async (repo) => {
        const isRequest = input.statut === SITE_STATUT.demande;
        const cells = isRequest ? [] : input.composteurs;
        const errors: FieldError[] = [];
        const ville = await repo.findVille(input.ville, input.cp);
        if (!ville) errors.push({ key: 'ville', error: SITE_MESSAGES.villeUnknown });
        if (!(await repo.typeSiteExists(input.type))) errors.push({ key: 'type', error: SITE_MESSAGES.typeUnknown });
        errors.push(...(await checkCellReferences(repo, cells, (i, f) => `composteurs${i}.${f}`)));
        errors.push(...(await positionErrorsOf(repo, input)));
        if (errors.length > 0 || !ville) throw new ValidationError(errors);

        const code = await repo.nextCode(input.type);
        const coordinates = await coordinatesFor(repo, input, null, { code_insee: ville.code_insee, adresse: input.adresse, numero: input.numero });
        const d = isRequest ? input.demandeur! : null;
        const demandeurId = d
          ? await repo.insertRequester({
              date: toStoredDate(d.date),
              civilite: d.civilite,
              nom: d.nom,
              prenom: d.prenom,
              fonction: d.fonction,
              precisions: d.precisions,
              telephone: d.telephone,
              telephone2: d.telephone2,
              email: d.email,
              periode_implantation: d.periodeImplantation,
              annee_implantation: d.anneeImplantation,
            })
          : null;
        const id = await repo.insertSite({
          code,
          nom: input.nom,
          ville: ville.nom,
          cp: ville.cp,
          code_insee: ville.code_insee,
          adresse: input.adresse,
          numero: input.numero,
          complement: input.complement,
          type_site_id: input.type,
          observations: input.observations,
          cadena: input.cadena,
          date_implantation: isRequest ? null : toStoredDate(input.dateImplantation),
          date_inauguration: isRequest ? null : toStoredDate(input.dateInauguration),
          statut_id: input.statut,
          demandeur_id: demandeurId,
          horaires: input.horaires ?? null,
          consignes: input.consignes ?? null,
          open_data: input.openData ?? true,
          ...coordinates,
        });
        const convention = isRequest ? null : toStoredDate(input.dateConvention);
        if (convention) await repo.addConvention(id, convention);
        await repo.insertCells(id, cells);
        return { id, code };
      });
    },

    /** A convention date other than the latest one (same Paris day) is added to the history, never overwritten. */
    update(id: number, input: SiteUpdate) {
      return inTransaction(db, async (repo) => {
        if (!(await repo.lockSite(id))) throw new NotFoundError(SITE_MESSAGES.siteNotFound);
        const errors: FieldError[] = [];
        if (!(await repo.typeSiteExists(input.type))) errors.push({ key: 'type', error: SITE_MESSAGES.typeUnknown });
        errors.push(...(await positionErrorsOf(repo, input)));
        if (errors.length > 0) throw new ValidationError(errors);
        const current = (await repo.publicColumns(id))!;
        const coordinates = await coordinatesFor(repo, input, current, { code_insee: current.code_insee, adresse: input.adresse, numero: input.numero });
        await repo.updateSite(id, {
          nom: input.nom,
          adresse: input.adresse,
          numero: input.numero,
          complement: input.complement,
          type_site_id: input.type,
          observations: input.observations,
          cadena: input.cadena,
          date_implantation: toStoredDate(input.dateImplantation),
          date_inauguration: toStoredDate(input.dateInauguration),
          statut_id: input.statut,
          ...(input.horaires !== undefined ? { horaires: input.horaires } : {}),
          ...(input.consignes !== undefined ? { consignes: input.consignes } : {}),
          ...(input.openData !== undefined ? { open_data: input.openData } : {}),
          ...coordinates,
        });
        const convention = toStoredDate(input.dateConvention);
        if (convention) {
          const [latest] = await repo.conventions(id);
          if (!latest || formatParisDate(latest) !== formatParisDate(convention)) await repo.addConvention(id, convention);
        }
      });
    },

    async detail(id: number) {
      const repo = createSitesRepository(db);
      const row = await repo.findRow(id);
      if (!row) throw new NotFoundError(SITE_MESSAGES.siteNotFound);
      const [conventions, referents, publicColumns] = await Promise.all([repo.conventions(id), repo.referents(id), repo.publicColumns(id)]);
      return { row, conventions, referents, publicColumns: publicColumns! };
    },

    /** Replaces the referents; each must be an active external user. */
    setReferents(id: number, userIds: number[]) {
      return inTransaction(db, async (repo) => {
        if (!(await repo.lockSite(id))) throw new NotFoundError(SITE_MESSAGES.siteNotFound);
        const ids = [...new Set(userIds)];
        const valid = await repo.activeExternalUsers(ids);
        if (ids.some((u) => !valid.has(u))) throw new ValidationError([{ key: 'user', error: SITE_MESSAGES.userUnknown }]);
        await repo.replaceReferents(id, ids);
      });
    },

    async cellsOfSite(siteId: number) {
      const repo = createSitesRepository(db);
      if (!(await repo.siteHeader(siteId))) throw new NotFoundError(SITE_MESSAGES.siteNotFound);
      return repo.cells({ siteId });
    },

    async cell(id: number) {
      const [cell] = await createSitesRepository(db).cells({ id });
      if (!cell) throw new NotFoundError(SITE_MESSAGES.cellNotFound);
      return cell;
    },

    /**
     * Cells are never deleted (interventions point to them): `actif: false` retires one and
     * frees its number. A cell with interventions keeps its use so its history stays valid.
     */
    updateCell(id: number, input: CellInput & { actif: boolean }) {
      return inTransaction(db, async (repo) => {
        const [cell] = await repo.cells({ id });
        if (!cell) throw new NotFoundError(SITE_MESSAGES.cellNotFound);
        await repo.lockSite(cell.site);
        const errors = await checkCellReferences(repo, [input], (_i, f) => f);
        if (cell.aInterventions && input.typeBac !== cell.typeBac) errors.push({ key: 'typeBac', error: SITE_MESSAGES.typeBacLocked });
        if (input.actif) errors.push(...numeroErrors([input], await repo.activeNumeros(cell.site, id), () => 'numero'));
        if (errors.length > 0) throw new ValidationError(errors);
        await repo.updateCell(id, input);
      });
    },

    addCells(siteId: number, cells: CellInput[]) {
      return inTransaction(db, async (repo) => {
        if (!(await repo.lockSite(siteId))) throw new NotFoundError(SITE_MESSAGES.siteNotFound);
        const errors = await checkCellReferences(repo, cells, (i, f) => `composteurs${i}.${f}`);
        errors.push(...numeroErrors(cells, await repo.activeNumeros(siteId), (i) => `composteurs${i}.numero`));
        if (errors.length > 0) throw new ValidationError(errors);
        await repo.insertCells(siteId, cells);
      });
    },
  };
}
