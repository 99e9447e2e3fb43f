// A row of photo thumbnails; a tap opens the full photo in the viewer (photo-viewer.tsx), and
// with `onRemove` each thumbnail has a button to take it out. Domain-free: it shows the
// addresses it is given (an API path, or an object URL of a photo not sent yet).
import { useState } from 'react';
import { PhotoThumbnails, type PhotoThumbnailsProps, type StripPhoto } from './photo-thumbnails';
import { PhotoViewer } from './photo-viewer';

export type { StripPhoto };

export type PhotoStripProps = Omit<PhotoThumbnailsProps, 'onOpen'>;

export function PhotoStrip(props: PhotoStripProps) {
  const [open, setOpen] = useState<number | null>(null);
  const { photos } = props;
  return (
    <>
      <PhotoThumbnails {...props} onOpen={setOpen} />
      {open !== null && (
        <PhotoViewer photos={photos.map((p) => ({ key: p.key, src: p.full, alt: p.alt }))} index={open} onIndexChange={setOpen} onClose={() => setOpen(null)} />
      )}
    </>
  );
}
