// Rules of the photos of field entries: who may add a photo to an intervention and who may see
// it, the idempotent store (a phone resends a photo whose answer it lost under the same client
// id), and one photo processed at a time per process, so that a burst of uploads (a phone
// coming back online with a day of photos, several phones at once) queues instead of holding
// several decoded images in memory together.
import type { CurrentUser } from '../../plugins/auth.js';
import type { Db } from '../../db/client.js';
import { can } from '../../../shared/permissions.js';
import { SITE_STATUT } from '../../../shared/domain.js';
import { PHOTO_MESSAGES, type Photo, type PhotoAddResponse, type PhotoSize } from '../../../shared/schemas/photos.js';
import { ConflictError, ForbiddenError, HttpError, NotFoundError, ValidationError } from '../../errors.js';
import { ImageRefusedError, processPhoto } from './photo-image.js';
import { createPhotosRepository, type InterventionAccess, type StoredPhoto } from './photos.repository.js';

/**
 * Adding a photo is part of recording the entry: ROLE_ADMIN on any intervention; otherwise only
 * its author, as long as they may still record on its site (active, and theirs for a referent).
 */
export function mayAddPhoto(user: CurrentUser, access: InterventionAccess): boolean {
  if (user.roles.includes('ROLE_ADMIN')) return true;
  if (access.intervenantId !== user.id || !can(user.roles, 'intervention.add')) return false;
  return access.siteStatut === SITE_STATUT.actif && (can(user.roles, 'site.chooseAll') || access.isReferent);
}

/**
 * Seeing a photo follows seeing its intervention: the interventions administration (every one),
 * the requests board and history (the interventions that raised or processed a request), its
 * author, and the referents of its site. Never anyone without a session.
 */
export function mayReadPhoto(user: CurrentUser, access: Omit<InterventionAccess, 'id'>): boolean {
  if (can(user.roles, 'intervention.list')) return true;
  if (can(user.roles, 'request.manage') && access.linkedToRequest) return true;
  return access.intervenantId === user.id || access.isReferent;
}

function toPhoto(p: StoredPhoto): Photo {
  return { id: p.id, idIntervention: p.interventionId, largeur: p.largeur, hauteur: p.hauteur, taille: p.taille, tailleMiniature: p.tailleMiniature };
}

/** The ETag of one size of a photo: its content never changes, so its hash names it. */
export function photoEtag(empreinte: string, size: PhotoSize): string {
  return `"${empreinte.slice(0, 32)}-${size === 'miniature' ? 'm' : 'c'}"`;
}

/** One job at a time; the others wait in arrival order. */
function serial() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(job: () => Promise<T>): Promise<T> => {
    const run = tail.then(job, job);
    tail = run.catch(() => undefined);
    return run;
  };
}

export function createPhotosService(db: Db) {
  const repo = createPhotosRepository(db);
  const oneAtATime = serial();

  function replayOf(stored: StoredPhoto, user: CurrentUser, interventionId: number): PhotoAddResponse {
    if (stored.interventionId !== interventionId || stored.envoyeParId !== user.id) throw new ConflictError(PHOTO_MESSAGES.conflict);
    return { status: 'success', message: PHOTO_MESSAGES.added, photo: toPhoto(stored) };
  }

  return {
    /** 404 for an unknown intervention, 403 for a caller who may not add a photo to it. Checked before the upload is read. */
    async checkCanAdd(user: CurrentUser, interventionId: number): Promise<void> {
      const access = await repo.interventionAccess(interventionId, user.id);
      if (!access) throw new NotFoundError(PHOTO_MESSAGES.interventionNotFound);
      if (!mayAddPhoto(user, access)) throw new ForbiddenError();
    },

    async add(user: CurrentUser, interventionId: number, clientId: string, upload: Buffer): Promise<PhotoAddResponse> {
      const stored = await repo.findByClientId(clientId);
      if (stored) return replayOf(stored, user, interventionId);

      let processed;
      try {
        processed = await oneAtATime(() => processPhoto(upload));
      } catch (e) {
        if (!(e instanceof ImageRefusedError)) throw e;
        if (e.reason === 'unsupported') throw new HttpError(415, PHOTO_MESSAGES.unsupported);
        throw new ValidationError([{ key: 'photo', error: e.reason === 'tooManyPixels' ? PHOTO_MESSAGES.tooManyPixels : PHOTO_MESSAGES.unreadable }], PHOTO_MESSAGES[e.reason]);
      }
      const inserted = await repo.insert({
        client_id: clientId,
        intervention_id: interventionId,
        envoye_par_id: user.id,
        largeur: processed.largeur,
        hauteur: processed.hauteur,
        taille: processed.image.length,
        taille_miniature: processed.miniature.length,
        empreinte: processed.empreinte,
        image: processed.image,
        miniature: processed.miniature,
      });
      if (inserted) return { status: 'success', message: PHOTO_MESSAGES.added, photo: toPhoto(inserted) };
      // Another post of the same photo got there first (the phone resent it mid-flight).
      const winner = await repo.findByClientId(clientId);
      if (!winner) throw new ConflictError(PHOTO_MESSAGES.conflict);
      return replayOf(winner, user, interventionId);
    },

    /** The photo's description for a reader (404 unknown, 403 not theirs to see). */
    async describeForRead(user: CurrentUser, photoId: number) {
      const photo = await repo.photoForRead(photoId, user.id);
      if (!photo) throw new NotFoundError(PHOTO_MESSAGES.notFound);
      if (!mayReadPhoto(user, photo)) throw new ForbiddenError();
      return photo;
    },

    async bytes(photoId: number, size: PhotoSize): Promise<Buffer> {
      const bytes = await repo.readImage(photoId, size);
      // Deleted with its intervention between the check and this read.
      if (!bytes) throw new NotFoundError(PHOTO_MESSAGES.notFound);
      return bytes;
    },

    photoIdsByIntervention: repo.photoIdsByIntervention,
  };
}
