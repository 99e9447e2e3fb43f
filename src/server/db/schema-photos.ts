// Kysely table types of the photos tables, mirroring their migration; schema.ts extends Database with them.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PhotosTables {}
