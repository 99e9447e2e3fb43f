// A row of photo thumbnails, each with a button to take it out when `onRemove` is given, and
// opening the photo when `onOpen` is given (photo-strip.tsx adds the viewer). Domain-free: it
// shows the addresses it is given (an API path, or an object URL of a photo not sent yet).
import { useState } from 'react';
import { Box, CloseButton, UnstyledButton } from '@mantine/core';
import { IconPhotoOff } from '@tabler/icons-react';

export interface StripPhoto {
  key: string;
  /** Address of the thumbnail, and of the full image the viewer shows. */
  thumbnail: string;
  full: string;
  /** What the photo shows, for screen readers ('Photo 1 de Réparation à effectuer'). */
  alt: string;
}

export interface PhotoThumbnailsProps {
  photos: readonly StripPhoto[];
  /** Name of the list for screen readers ('Photos de l’action 1'). */
  label: string;
  /** Thumbnail side, in CSS pixels. */
  size?: number;
  onOpen?: (index: number) => void;
  onRemove?: (index: number) => void;
}

export function PhotoThumbnails({ photos, label, size = 64, onOpen, onRemove }: PhotoThumbnailsProps) {
  if (photos.length === 0) return null;
  return (
    <Box component="ul" aria-label={label} m={0} p={0} style={{ listStyle: 'none', display: 'flex', flexWrap: 'wrap', gap: 8 }}>
      {photos.map((photo, i) => (
        <Box component="li" key={photo.key} pos="relative" w={size} h={size}>
          <Box w={size} h={size} style={{ borderRadius: 6, overflow: 'hidden', background: 'var(--mantine-color-gray-2)' }}>
            {onOpen ? (
              <UnstyledButton onClick={() => onOpen(i)} aria-label={`Agrandir la photo ${i + 1} sur ${photos.length}`} w={size} h={size} display="block">
                <Thumbnail src={photo.thumbnail} alt={photo.alt} size={size} />
              </UnstyledButton>
            ) : (
              <Thumbnail src={photo.thumbnail} alt={photo.alt} size={size} />
            )}
          </Box>
          {onRemove && (
            <CloseButton size="sm" radius="xl" variant="filled" aria-label={`Retirer la photo ${i + 1}`} onClick={() => onRemove(i)} pos="absolute" top={-6} right={-6} />
          )}
        </Box>
      ))}
    </Box>
  );
}

function Thumbnail({ src, alt, size }: { src: string; alt: string; size: number }) {
  const [failed, setFailed] = useState(false);
  if (failed) {
    return (
      <Box w={size} h={size} style={{ display: 'flex', alignItems: 'center', justifyContent: 'center' }} title="Photo indisponible">
        <IconPhotoOff size={Math.round(size / 2.5)} aria-hidden />
      </Box>
    );
  }
  return <img src={src} alt={alt} width={size} height={size} loading="lazy" onError={() => setFailed(true)} style={{ objectFit: 'cover', display: 'block' }} />;
}
