// The open-data files of the composting sites, as French data portals read them: every column
// the SCDL 'équipements' model requires (the collectivity and its SIRET, the equipment's
// identifier, theme, code, type, name, address and WGS 84 position), then the composting fields. GeoJSON per RFC 7946 (a
// FeatureCollection of Points in [longitude, latitude] order; a site not yet placed has a null
// geometry, which the RFC allows) and CSV per RFC 4180: UTF-8 without byte-order mark, commas,
// CRLF, a point as decimal separator, values exactly as stored (machines read these files, so
// nothing is prefixed the way the spreadsheet exports guard against formulas).
import { parisDayValue } from '../../../shared/dates.js';
import type { OpenDataRecord } from './public-sites.repository.js';

export interface OpenDataPublisher {
  /** OPEN_DATA_NAME. */
  name: string;
  /** OPEN_DATA_SIRET (14 digits), given in COLL_SIRET. */
  siret: string;
  /** Base of the public page links (PUBLIC_URL). */
  publicUrl: string;
}

/** What a composting site is in the equipment nomenclature's terms. */
export const EQUIP_THEME = 'Autre équipement';
export const EQUIP_TYPE = 'Site de compostage partagé';

export const OPEN_DATA_FIELDS = [
  'COLL_NOM',
  'COLL_SIRET',
  'EQUIP_UID',
  'EQUIP_THEME',
  'EQUIP_CODE',
  'EQUIP_TYPE',
  'EQUIP_NOM',
  'ADR_NUMERO',
  'ADR_NOMVOIE',
  'ADR_CODEPOSTAL',
  'ADR_COMMUNE',
  'EQUIP_LAT',
  'EQUIP_LONG',
  'EQUIP_WEB',
  'SITE_CODE',
  'TYPE_SITE',
  'DATE_IMPLANTATION',
  'NB_BACS',
  'VOLUME_TOTAL_L',
  'HORAIRES',
] as const;
export type OpenDataField = (typeof OPEN_DATA_FIELDS)[number];
export type OpenDataProperties = Record<OpenDataField, string | number | null>;

/** Six decimals: about 10 cm, the precision of an address point. */
const round6 = (v: number | null) => (v === null ? null : Math.round(v * 1e6) / 1e6);

export function openDataProperties(site: OpenDataRecord, publisher: OpenDataPublisher): OpenDataProperties {
  return {
    COLL_NOM: publisher.name,
    COLL_SIRET: publisher.siret,
    // The city's INSEE code then the site's code: unique and stable across exports.
    EQUIP_UID: site.codeInsee ? `${site.codeInsee}-${site.code}` : site.code,
    EQUIP_THEME,
    // The site's own code (QUA001...), as the programme and its signs name it.
    EQUIP_CODE: site.code,
    EQUIP_TYPE,
    EQUIP_NOM: site.nom || `Site de compostage ${site.code}`,
    ADR_NUMERO: site.numero,
    ADR_NOMVOIE: site.adresse,
    ADR_CODEPOSTAL: site.cp,
    ADR_COMMUNE: site.ville,
    EQUIP_LAT: round6(site.latitude),
    EQUIP_LONG: round6(site.longitude),
    EQUIP_WEB: `${publisher.publicUrl.replace(/\/+$/, '')}/s/${encodeURIComponent(site.code)}`,
    SITE_CODE: site.code,
    TYPE_SITE: site.typeSite,
    DATE_IMPLANTATION: parisDayValue(site.dateImplantation),
    NB_BACS: site.nbComposteurs,
    VOLUME_TOTAL_L: site.volume,
    HORAIRES: site.horaires,
  };
}

export function toGeoJson(sites: readonly OpenDataRecord[], publisher: OpenDataPublisher) {
  return {
    type: 'FeatureCollection' as const,
    features: sites.map((s) => {
      const properties = openDataProperties(s, publisher);
      return {
        type: 'Feature' as const,
        id: properties.EQUIP_UID as string,
        geometry:
          properties.EQUIP_LONG !== null && properties.EQUIP_LAT !== null
            ? { type: 'Point' as const, coordinates: [properties.EQUIP_LONG as number, properties.EQUIP_LAT as number] }
            : null,
        properties,
      };
    }),
  };
}

function csvCell(v: string | number | null): string {
  if (v === null) return '';
  const text = String(v);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(sites: readonly OpenDataRecord[], publisher: OpenDataPublisher): string {
  const lines = [OPEN_DATA_FIELDS.join(',')];
  for (const s of sites) {
    const p = openDataProperties(s, publisher);
    lines.push(OPEN_DATA_FIELDS.map((f) => csvCell(p[f])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
