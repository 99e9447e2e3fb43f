// Kysely table types of the public-sites tables, mirroring their migration; schema.ts extends Database with them.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PublicSitesTables {}
