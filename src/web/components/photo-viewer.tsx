// A full-screen photo viewer that works with a thumb on a phone: the photo fills the screen,
// a swipe sideways (or the large arrow buttons, or the keyboard's arrows) goes to the next or
// previous one, 'Fermer' or Escape closes it, and pinching zooms as on any page. Domain-free:
// it shows the addresses it is given.
import { useEffect, useRef, useState, type PointerEvent } from 'react';
import { ActionIcon, Box, Center, Loader, Modal, Text } from '@mantine/core';
import { IconChevronLeft, IconChevronRight } from '@tabler/icons-react';

export interface ViewerPhoto {
  key: string;
  /** Address of the full image. */
  src: string;
  alt: string;
}

/** Horizontal travel, in CSS pixels, that makes a swipe. */
const SWIPE_PX = 50;

export interface PhotoViewerProps {
  photos: readonly ViewerPhoto[];
  /** The photo shown; the viewer is open when it is not null. */
  index: number | null;
  onIndexChange: (index: number) => void;
  onClose: () => void;
}

export function PhotoViewer({ photos, index, onIndexChange, onClose }: PhotoViewerProps) {
  const opened = index !== null && photos.length > 0;
  const current = opened ? Math.min(Math.max(index, 0), photos.length - 1) : 0;
  const photo = photos[current];
  const many = photos.length > 1;
  const go = (step: number) => {
    if (!many) return;
    onIndexChange((current + step + photos.length) % photos.length);
  };

  // The arrows work wherever the focus is in the viewer (it starts on 'Fermer').
  useEffect(() => {
    if (!opened || !many) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'ArrowRight') onIndexChange((current + 1) % photos.length);
      if (e.key === 'ArrowLeft') onIndexChange((current - 1 + photos.length) % photos.length);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [opened, many, current, photos.length, onIndexChange]);

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      fullScreen
      title={many ? `Photo ${current + 1} sur ${photos.length}` : 'Photo'}
      closeButtonProps={{ 'aria-label': 'Fermer', size: 'xl' }}
      styles={{
        content: { background: '#111', color: '#fff', display: 'flex', flexDirection: 'column' },
        header: { background: '#111', color: '#fff' },
        body: { flex: 1, padding: 0, display: 'flex', minHeight: 0 },
      }}
      transitionProps={{ duration: 0 }}
    >
      {photo && <Stage key={photo.key} photo={photo} many={many} onPrevious={() => go(-1)} onNext={() => go(1)} />}
    </Modal>
  );
}

function Stage({ photo, many, onPrevious, onNext }: { photo: ViewerPhoto; many: boolean; onPrevious: () => void; onNext: () => void }) {
  const [state, setState] = useState<'loading' | 'shown' | 'failed'>('loading');
  const start = useRef<{ x: number; y: number } | null>(null);

  const onPointerDown = (e: PointerEvent) => {
    start.current = { x: e.clientX, y: e.clientY };
  };
  const onPointerUp = (e: PointerEvent) => {
    const from = start.current;
    start.current = null;
    if (!from || !many) return;
    const dx = e.clientX - from.x;
    const dy = e.clientY - from.y;
    if (Math.abs(dx) < SWIPE_PX || Math.abs(dx) < Math.abs(dy)) return;
    if (dx < 0) onNext();
    else onPrevious();
  };

  return (
    <Box
      pos="relative"
      style={{ flex: 1, display: 'flex', alignItems: 'center', justifyContent: 'center', overflow: 'hidden', touchAction: 'pan-y pinch-zoom' }}
      onPointerDown={onPointerDown}
      onPointerUp={onPointerUp}
      onPointerCancel={() => {
        start.current = null;
      }}
    >
      {state === 'loading' && (
        <Center pos="absolute" inset={0} role="status" aria-live="polite" aria-label="Chargement de la photo">
          <Loader color="gray" aria-hidden />
        </Center>
      )}
      {state === 'failed' ? (
        <Text role="alert" ta="center" px="md">
          La photo n’a pas pu être chargée. Vérifiez votre connexion puis réessayez.
        </Text>
      ) : (
        <img
          src={photo.src}
          alt={photo.alt}
          draggable={false}
          onLoad={() => setState('shown')}
          onError={() => setState('failed')}
          style={{ maxWidth: '100%', maxHeight: '100%', objectFit: 'contain', userSelect: 'none', opacity: state === 'shown' ? 1 : 0 }}
        />
      )}
      {many && (
        <>
          <ActionIcon variant="filled" color="dark" size={48} radius="xl" aria-label="Photo précédente" onClick={onPrevious} pos="absolute" left={8} top="50%" style={{ transform: 'translateY(-50%)' }}>
            <IconChevronLeft size={28} aria-hidden />
          </ActionIcon>
          <ActionIcon variant="filled" color="dark" size={48} radius="xl" aria-label="Photo suivante" onClick={onNext} pos="absolute" right={8} top="50%" style={{ transform: 'translateY(-50%)' }}>
            <IconChevronRight size={28} aria-hidden />
          </ActionIcon>
        </>
      )}
    </Box>
  );
}
