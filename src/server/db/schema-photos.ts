// Kysely table types of the photos tables, mirroring their migration; schema.ts extends Database with them.
import type { ColumnType, Generated } from 'kysely';

export interface PhotosTables {
  /** Photos of field entries (migration 017); deleted with their intervention. */
  intervention_photo: {
    id: Generated<number>;
    /** The phone's id of the photo: a resend finds it instead of storing it again. */
    client_id: string;
    intervention_id: number;
    /** Who sent it; null once that account is gone. */
    envoye_par_id: number | null;
    largeur: number;
    hauteur: number;
    /** Bytes of the full image, and of the thumbnail. */
    taille: number;
    taille_miniature: number;
    /** SHA-256 of the full image (hex): the ETag of both sizes. */
    empreinte: string;
    /** node-postgres gives a Buffer, PGlite a Uint8Array. */
    image: ColumnType<Uint8Array, Uint8Array, Uint8Array>;
    miniature: ColumnType<Uint8Array, Uint8Array, Uint8Array>;
    created_at: ColumnType<Date, Date | string | undefined, Date | string>;
  };
}
