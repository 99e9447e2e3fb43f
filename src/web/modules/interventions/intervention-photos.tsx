// The photos of a stored intervention as thumbnails that open the full photo: what the
// interventions administration, the requests board and the requests history show for the
// `photos: [{id}]` of their rows. The addresses are the API's (GET /api/admin/photo/{id}),
// which checks the rights on every view.
import { PhotoStrip, type StripPhoto } from '../../components/photo-strip';

export const photoUrl = (id: number, size: 'miniature' | 'complete') => `/api/admin/photo/${id}?taille=${size}`;

export function interventionPhotoSources(photos: readonly { id: number }[], what: string): StripPhoto[] {
  return photos.map((p, i) => ({
    key: String(p.id),
    thumbnail: photoUrl(p.id, 'miniature'),
    full: photoUrl(p.id, 'complete'),
    alt: `Photo ${i + 1} sur ${photos.length} : ${what}`,
  }));
}

/** Nothing when the intervention has no photo. `what` says what they show, for screen readers. */
export function InterventionPhotos({ photos, what, size }: { photos: readonly { id: number }[] | undefined; what: string; size?: number }) {
  if (!photos || photos.length === 0) return null;
  return <PhotoStrip photos={interventionPhotoSources(photos, what)} label={`Photos : ${what}`} size={size} />;
}
