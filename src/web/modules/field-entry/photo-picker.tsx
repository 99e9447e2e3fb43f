// The photos of one block of the site sheet: 'Prendre une photo' (the camera) and 'Choisir une
// image' (the gallery), at most MAX_PHOTOS_PER_BLOCK, each shrunk on the phone before it is
// kept (photo-resize.ts, loaded on the first photo), shown as thumbnails that can be removed
// before saving (no full-screen viewer here: the sheet stays within its size budget, and the
// thumbnail is enough to check the shot). The photos are stored with the entry when it is saved.
import { useEffect, useMemo, useState } from 'react';
import { Button, FileButton, Group, Stack, Text } from '@mantine/core';
import { IconCamera, IconPhoto } from '@tabler/icons-react';
import { PhotoThumbnails } from '../../components/photo-thumbnails';
import { newClientId } from '../../offline/client-id';
import { MAX_PHOTOS_PER_BLOCK, type PhotoDraft } from './photo-draft';

export { MAX_PHOTOS_PER_BLOCK, type PhotoDraft };
export const UNREADABLE_PHOTO_MESSAGE = 'Cette image n’a pas pu être lue : choisissez une photo JPEG, PNG ou WebP.';
export const TOO_MANY_PHOTOS_MESSAGE = `${MAX_PHOTOS_PER_BLOCK} photos au plus par action : les autres n’ont pas été ajoutées.`;

interface Props {
  photos: readonly PhotoDraft[];
  onAdd: (photo: PhotoDraft) => void;
  onRemove: (index: number) => void;
  /** 'Action 1': names the block for screen readers. */
  blockLabel: string;
}

/** Object URLs of the drafts' images for the thumbnails, released when they change or go. */
function useDraftUrls(photos: readonly PhotoDraft[]): Map<string, string> {
  const key = photos.map((p) => p.clientId).join(',');
  const [urls, setUrls] = useState(new Map<string, string>());
  useEffect(() => {
    const made = new Map(photos.map((p) => [p.clientId, URL.createObjectURL(new Blob([p.data], { type: p.type }))]));
    setUrls(made);
    return () => {
      for (const url of made.values()) URL.revokeObjectURL(url);
    };
    // The drafts never change once made: their ids say everything.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return urls;
}

export function PhotoPicker({ photos, onAdd, onRemove, blockLabel }: Props) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const urls = useDraftUrls(photos);
  const room = MAX_PHOTOS_PER_BLOCK - photos.length;

  const add = async (files: File | File[] | null) => {
    const list = files === null ? [] : Array.isArray(files) ? files : [files];
    if (list.length === 0) return;
    setError(null);
    setBusy(true);
    try {
      const { shrinkPhoto } = await import('./photo-resize');
      for (const [i, file] of list.entries()) {
        if (i >= room) {
          setError(TOO_MANY_PHOTOS_MESSAGE);
          break;
        }
        try {
          const shrunk = await shrinkPhoto(file);
          onAdd({ clientId: newClientId(), type: shrunk.type, data: shrunk.data });
        } catch {
          setError(UNREADABLE_PHOTO_MESSAGE);
        }
      }
    } catch {
      // The resizing code could not be loaded (offline before it was ever cached).
      setError(UNREADABLE_PHOTO_MESSAGE);
    } finally {
      setBusy(false);
    }
  };

  const strip = useMemo(
    () =>
      photos.flatMap((p, i) => {
        const url = urls.get(p.clientId);
        return url ? [{ key: p.clientId, thumbnail: url, full: url, alt: `Photo ${i + 1} sur ${photos.length} de l’${blockLabel.toLowerCase()}` }] : [];
      }),
    [photos, urls, blockLabel],
  );

  return (
    <Stack gap={6}>
      <Text size="sm" fw={500}>
        Photos ({photos.length}/{MAX_PHOTOS_PER_BLOCK})
      </Text>
      <PhotoThumbnails photos={strip} label={`Photos de l’${blockLabel.toLowerCase()}`} onRemove={onRemove} />
      <Group gap="xs">
        <FileButton onChange={(f) => void add(f)} accept="image/*" capture="environment" disabled={room <= 0 || busy}>
          {(props) => (
            <Button {...props} variant="light" size="sm" leftSection={<IconCamera size={16} aria-hidden />} loading={busy} disabled={room <= 0 || busy}>
              Prendre une photo
            </Button>
          )}
        </FileButton>
        <FileButton onChange={(f) => void add(f)} accept="image/jpeg,image/png,image/webp,image/*" multiple disabled={room <= 0 || busy}>
          {(props) => (
            <Button {...props} variant="default" size="sm" leftSection={<IconPhoto size={16} aria-hidden />} disabled={room <= 0 || busy}>
              Choisir une image
            </Button>
          )}
        </FileButton>
      </Group>
      <div aria-live="polite">
        {busy && <Text size="sm">Préparation de la photo…</Text>}
        {error && (
          <Text size="sm" c="red" role="alert">
            {error}
          </Text>
        )}
      </div>
    </Stack>
  );
}
